/**
 * A minimal read-only zip reader (stored and deflated members, no zip64, no encryption): enough to
 * read a benchmark archive in place, so its data never has to be unpacked into the project.
 */
import { inflateRawSync } from 'node:zlib';
import { EngramError } from '../util/errors.js';

export interface ZipEntry {
  name: string;
  read(): Buffer;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

function corrupt(what: string): EngramError {
  return new EngramError('invalid_input', `not a readable zip archive: ${what}`);
}

function findEndOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let i = zip.length - 22; i >= lowest; i--) {
    if (zip.readUInt32LE(i) === EOCD_SIGNATURE) return i;
  }
  throw corrupt('no end-of-central-directory record');
}

/** Lists the members of a zip held in memory; each member is inflated only when read. */
export function readZipEntries(zip: Buffer): ZipEntry[] {
  if (zip.length < 22) throw corrupt('too short');
  const eocd = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  if (offset === 0xffffffff || count === 0xffff) throw corrupt('zip64 is not supported');
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== CENTRAL_SIGNATURE) {
      throw corrupt('bad central directory entry');
    }
    const flags = zip.readUInt16LE(offset + 8);
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    entries.push({
      name,
      read() {
        if (flags & 1) throw corrupt(`${name} is encrypted`);
        if (zip.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) throw corrupt(`bad header: ${name}`);
        const start =
          localOffset +
          30 +
          zip.readUInt16LE(localOffset + 26) +
          zip.readUInt16LE(localOffset + 28);
        const data = zip.subarray(start, start + compressedSize);
        if (data.length !== compressedSize) throw corrupt(`${name} is truncated`);
        const out = method === 0 ? data : method === 8 ? inflateRawSync(data) : undefined;
        if (!out) throw corrupt(`${name} uses compression method ${method}`);
        if (out.length !== size) throw corrupt(`${name} has the wrong size`);
        return out;
      },
    });
  }
  return entries;
}
