/**
 * A long-running host's watch over a memory directory tree (one inotify watch per folder), so a
 * warm turn in which nothing changed costs no per-file system call at all: the cached scan is
 * reused as it is. Only a hint that lets work be skipped, never trusted on its own:
 *
 * - It is only used where the kernel reports every change made by anyone: Linux, on local
 *   filesystems (ext4, xfs, btrfs, tmpfs, f2fs, zfs, overlay). Network and FUSE filesystems
 *   (NFS, SMB, 9p, sshfs, a VM's shared folder) miss changes made on the other side: stat it is.
 * - It is armed by a full scan (every folder is watched before it is listed, so a change is either
 *   seen by that scan or reported afterwards), and trusted only on a later turn: never on the
 *   first turn of a directory, never while a file is too fresh to trust by stat either.
 * - Before trusting it, pending events are let in (two turns of the event loop, so the poll phase
 *   that reads the kernel's queue runs at least once), and the directory path must still name the
 *   folder watched (a parent renamed or replaced by a link moves no event here).
 * - Any event on a non-dot name, any error, a burst of events as long as the kernel queue's
 *   overflow would be, or a folder it could not watch: the next turn revalidates by stat, as
 *   without the watch, and arms it again.
 */
import { type FSWatcher, statfsSync, statSync, watch } from 'node:fs';
import { basename, join } from 'node:path';

/** Filesystem magic numbers (statfs f_type) whose inotify events cover every change on them. */
const LOCAL_FILESYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0x794c7630, // overlayfs
]);

/** More folders than this: watching costs more kernel watches than it saves; stat instead. */
const MAX_WATCHED_DIRS = 512;
/**
 * Events in one turn of the loop at which the kernel's queue (16,384 by default, shared by every
 * watcher of the process) may have overflowed and dropped some: treated as a change of anything.
 */
const BURST_LIMIT = 1_024;
/** Trees watched at once per process (as many as the header caches kept). */
const TREES_KEPT = 8;

export interface TreeWatch {
  /**
   * Start of a full scan, before anything is listed: the scan then visits every folder it lists,
   * and ends by saying whether its result may be reused while nothing changes.
   */
  beginScan(): TreeScan;
  /** Let pending events in; true when nothing in the tree can have changed since the last arming. */
  quiet(): Promise<boolean>;
  /** Changes each time the watch is armed: data cached under one arming is valid while it holds. */
  readonly epoch: number;
  /** Whether the root's filesystem reports every change (asked once while the root exists). */
  watchable(): boolean;
  close(): void;
}

export interface TreeScan {
  /** Watch this folder (`rel` to the root, '' for the root), just before it is listed. */
  visit(rel: string): void;
  /**
   * `usable` when the scan was complete and may be reused. True when the watch is armed (a new
   * epoch): no change was reported since the scan began, and no other scan began since.
   */
  end(usable: boolean): boolean;
}

const trees = new Map<string, TreeWatch>();
/** Epochs are unique in the process: a closed watch's epoch never comes back with a new one. */
let epochs = 0;

/** `ENGRAM_NO_WATCH=1`: revalidate by stat every turn, as a one-shot process does. */
function watchingOff(): boolean {
  return process.env.ENGRAM_NO_WATCH === '1';
}

/** Whether watching can stand in for stat on this directory's filesystem. */
export function watchableFilesystem(dir: string): boolean {
  if (process.platform !== 'linux' || watchingOff()) return false;
  try {
    return LOCAL_FILESYSTEMS.has(Number(statfsSync(dir).type));
  } catch {
    return false;
  }
}

/** The watch of `root` (created on first use; at most TREES_KEPT kept, oldest closed). */
export function treeWatchFor(root: string): TreeWatch {
  const hit = trees.get(root);
  if (hit) {
    trees.delete(root);
    trees.set(root, hit);
    return hit;
  }
  const created = createTreeWatch(root);
  trees.set(root, created);
  while (trees.size > TREES_KEPT) {
    const [oldest, watchOf] = trees.entries().next().value!;
    trees.delete(oldest);
    watchOf.close();
  }
  return created;
}

/** Close every watch (tests; a host that wants its watches back). */
export function closeTreeWatches(): void {
  for (const w of trees.values()) w.close();
  trees.clear();
}

interface Watched {
  watcher: FSWatcher;
  /** The folder the watch is on (a watch follows the folder, not its path). */
  dev: number;
  ino: number;
}

function createTreeWatch(root: string): TreeWatch {
  const watchers = new Map<string, Watched>();
  /** Reported changes (and errors, bursts, folders not watched): an arming holds while unchanged. */
  let changes = 0;
  let armedAt: number | undefined;
  let scans = 0;
  let epoch = -1;
  let burst = 0;
  let filesystemOk: boolean | undefined;

  const changed = () => {
    changes++;
  };
  const onEvent = (dir: string) => {
    const self = basename(dir);
    return (_type: string, name: string | Buffer | null) => {
      if (burst++ === 0)
        setImmediate(() => {
          burst = 0;
        });
      if (burst >= BURST_LIMIT) changed();
      // Dot names are engram's own files (the cache, locks, temp files, the recall log's folder),
      // never scanned; a folder's own rename or removal reports its name, which may start with one.
      if (typeof name === 'string' && name.startsWith('.') && name !== self) return;
      changed();
    };
  };
  const unwatch = (dir: string) => {
    const w = watchers.get(dir);
    if (!w) return;
    watchers.delete(dir);
    w.watcher.close();
  };
  /** Watch `dir` unless already watched where its path now leads (a replaced folder is watched anew). */
  const ensure = (dir: string) => {
    const info = statSync(dir, { throwIfNoEntry: false });
    const kept = watchers.get(dir);
    if (kept && info && kept.dev === info.dev && kept.ino === info.ino) return;
    unwatch(dir);
    if (!info || watchers.size >= MAX_WATCHED_DIRS) {
      changed(); // gone, or too many folders: stat this tree every turn
      return;
    }
    try {
      const watcher = watch(dir, { persistent: false }, onEvent(dir));
      watcher.on('error', () => {
        changed();
        unwatch(dir);
      });
      watchers.set(dir, { watcher, dev: info.dev, ino: info.ino });
    } catch {
      changed(); // ENOSPC (out of watches), EACCES: stat this tree every turn
    }
  };

  return {
    get epoch() {
      return epoch;
    },
    watchable() {
      if (watchingOff()) return false;
      if (filesystemOk !== undefined) return filesystemOk;
      // A missing root (a user layer nobody wrote to yet) is asked again once it exists, without
      // a failing statfs each turn; the answer for an existing one is kept.
      if (statSync(root, { throwIfNoEntry: false }) === undefined) return false;
      filesystemOk = watchableFilesystem(root);
      return filesystemOk;
    },
    beginScan() {
      armedAt = undefined;
      const id = ++scans;
      const startedAt = changes;
      const visited = new Set<string>();
      return {
        visit(rel) {
          const dir = rel === '' ? root : join(root, rel);
          visited.add(dir);
          ensure(dir);
        },
        end(usable) {
          // Another scan began meanwhile: it decides (its listing is the newer one).
          if (id !== scans) return false;
          for (const dir of [...watchers.keys()]) if (!visited.has(dir)) unwatch(dir);
          if (!usable || changes !== startedAt || !watchers.has(root)) return false;
          armedAt = changes;
          epoch = ++epochs;
          return true;
        },
      };
    },
    async quiet() {
      if (armedAt !== changes || watchingOff()) return false;
      // Events the kernel queued before this turn reach us in a poll phase: let one run.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (armedAt !== changes) return false;
      // The path must still lead to the folder watched (a parent renamed moves no event here).
      const info = statSync(root, { throwIfNoEntry: false });
      const watched = watchers.get(root);
      return info !== undefined && info.dev === watched?.dev && info.ino === watched.ino;
    },
    close() {
      armedAt = undefined;
      changed();
      for (const dir of [...watchers.keys()]) unwatch(dir);
    },
  };
}
