/**
 * A small hand-written thesaurus, used to expand a query by meaning without a model: "install"
 * also looks for "dependency" and "pnpm", "crash" for "bug". Each line is `head: members`;
 * `@other` pulls in another concept with all its members. Every expansion weighs less than the
 * word itself, so exact matches still win.
 *
 * engram serves coding agents, so the first part is software work: code, tools, infrastructure
 * and how people like to work. Every line there names the labeled case (eval/recall-sets/) it was
 * added for. The second part is everyday vocabulary for facts about the person; a word that also
 * means something in software ("running", "class", "spring", "race", "tree", "store", "plan")
 * is never a member there, because it would pull a life note into a coding prompt, or a coding
 * note into a chat about the weekend. `concepts.test.ts` keeps both rules.
 */
import { IRREGULAR_FORMS } from './lemmas.js';
import { stem } from './stem.js';

/** Software work. Cases: coding-agent.json unless marked heldout (heldout-platform.json). */
export const SOFTWARE_TAXONOMY = `
dependency: dependencies package packages library install npm pnpm yarn pip poetry lockfile
database: db sql postgres postgresql mysql sqlite schema migration migrations table column 数据
deploy: deployment rollout 部署 上线
container: docker dockerfile image buildx
kubernetes: k8s kubectl pod cluster helm 集群
monitoring: dashboard metrics grafana datadog
format: formatter reformat lint gofmt prettier black isort
pr: pullrequest
flag: toggle launchdarkly
incident: outage postmortem
language: 语言 中文 英文 chinese english
colour: color hex palette
doc: docs documentation readme 文档
`;

/**
 * Everyday concepts (family, pets, travel, health, hobbies): what a person tells an assistant
 * about their life. None of their members is a common software word.
 */
export const EVERYDAY_TAXONOMY = `
child: kid children son daughter baby toddler boy girl
family: husband wife spouse @child @parent @grandparent sibling brother sister cousin aunt uncle
parent: mom dad mother father
grandparent: grandma grandmother grandpa grandfather granny
pet: dog puppy pup cat kitten hamster rabbit parrot turtle horse
art: painting drawing sketch sculpture pottery ceramics mural artwork
music: song concert album singing @instrument
instrument: guitar piano violin drum flute cello saxophone ukulele
sport: soccer football basketball baseball tennis volleyball hockey golf swimming cycling surfing skiing @martial
exercise: workout gym fitness yoga jogging
martial: taekwondo karate judo kickboxing boxing jiujitsu
outdoor: hike hiking camping climbing mountaineering kayaking fishing
activity: hobby pastime @sport @art @music @outdoor @exercise dancing cooking gardening volunteering
career: employment profession occupation work job
hurt: injury injured injure wound
sick: ill illness disease
doctor: physician nurse hospital clinic
trip: travel journey vacation holiday roadtrip tour visit
car: vehicle truck
home: house apartment
movie: film cinema
book: novel novels
happy: glad joyful excited delighted
sad: unhappy depressed
relax: destress unwind
volunteer: volunteering charity donate donation fundraiser
school: college university
teacher: mentor coach instructor tutor
friend: buddy pal
food: meal dish recipe cooking baking
photo: photograph camera
colleague: coworker workmate teammate
celebration: party festival parade wedding birthday christmas thanksgiving easter halloween
relationship: dating boyfriend girlfriend married marriage divorce breakup
religion: religious church faith prayer spiritual
military: army navy veteran soldier
nature: mountain forest beach lake ocean river outdoors
stress: anxious anxiety overwhelmed stressful
adopt: adoption foster
jewelry: necklace bracelet earrings
garden: flower flowers gardening
drink: coffee tea wine beer juice
dessert: cake cookie cookies pie chocolate
therapy: counseling therapist counselor psychologist
mindfulness: meditation meditate
fondness: love enjoy fond favorite adore
achievement: accomplishment milestone award prize trophy
hardship: struggle difficulty setback obstacle
ambition: dream aspiration goal
competition: tournament contest championship
clothes: clothing fashion outfit dress shirt shoes jacket
season: summer winter autumn
social: instagram facebook twitter tiktok youtube
politics: political government election vote
money: financial finance income salary cash afford
health: wellbeing wellness healthy
country: nation abroad
city: town
shopping: purchase buy
gathering: festival concert parade fair meetup ceremony @celebration
feeling: emotion emotional mood
learn: study lesson workshop
writer: author poem poetry journal blog
event: party festival concert parade fair meetup celebration ceremony gathering
place: location venue
`;

/**
 * Weight of a related term relative to the query word itself, the same whether it is narrower
 * ("pet" → "dog"), broader ("dog" → "pet") or a sibling ("dog" → "cat"): on the LoCoMo dev
 * conversations separate weights (0.5–0.9) did no better.
 */
export const RELATED_WEIGHT = 0.7;

export function conceptStem(word: string): string {
  return stem(IRREGULAR_FORMS.get(word) ?? word);
}

/** Stemmed term → related stemmed terms with weights. */
export type ConceptTable = ReadonlyMap<string, ReadonlyMap<string, number>>;

/**
 * The `head: members` lines of a taxonomy, and each head's members with `@other` references
 * expanded (a reference cycle is followed once). Pure.
 */
function parseTaxonomy(taxonomy: string): {
  direct: Map<string, string[]>;
  membersOf: (head: string, seen: Set<string>) => string[];
} {
  const direct = new Map<string, string[]>();
  for (const line of taxonomy.trim().split('\n')) {
    if (!line.includes(':')) continue;
    const [head, members] = line.split(':');
    direct.set(head!.trim(), members!.trim().split(/\s+/));
  }
  const membersOf = (head: string, seen: Set<string>): string[] => {
    if (seen.has(head)) return [];
    seen.add(head);
    return (direct.get(head) ?? []).flatMap((m) =>
      m.startsWith('@') ? [m.slice(1), ...membersOf(m.slice(1), seen)] : [m],
    );
  };
  return { direct, membersOf };
}

/** Parse `head: members` lines (with `@other` references) into a symmetric concept table. Pure. */
export function buildConceptTable(taxonomy: string): ConceptTable {
  const { direct, membersOf } = parseTaxonomy(taxonomy);
  const related = new Map<string, Map<string, number>>();
  const link = (from: string, to: string, weight: number) => {
    if (from === to) return;
    const m = related.get(from) ?? new Map<string, number>();
    if ((m.get(to) ?? 0) < weight) m.set(to, weight);
    related.set(from, m);
  };
  for (const [head, members] of direct) {
    const h = conceptStem(head);
    for (const m of new Set(membersOf(head, new Set()).map(conceptStem))) {
      link(h, m, RELATED_WEIGHT);
      link(m, h, RELATED_WEIGHT);
    }
    const siblings = members.filter((m) => !m.startsWith('@')).map(conceptStem);
    for (const a of siblings) for (const b of siblings) link(a, b, RELATED_WEIGHT);
  }
  return related;
}

/** The table recall uses: software work first, then the everyday part. */
export const DEFAULT_TAXONOMY = `${SOFTWARE_TAXONOMY}\n${EVERYDAY_TAXONOMY}`;

/**
 * The first character of `conceptStem(word)`, without stemming: Porter's steps only ever rewrite a
 * word's end and keep at least its first letter, so a stem starts as its lower-cased word (or the
 * word's base form) does. `concepts.test.ts` checks it for every word of the taxonomy.
 */
export function conceptStemInitial(word: string): string {
  return (IRREGULAR_FORMS.get(word) ?? word).toLowerCase().charAt(0);
}

/**
 * `buildConceptTable(taxonomy).get(term)`, computed for the terms asked about only. Building the
 * whole table stems every word of the taxonomy, a cost every fresh process (a prompt's hook) paid
 * on its first query; this stems only the words of the lines that can hold the term (a word that
 * does not start with the term's first letter cannot stem to it), and links them in the same
 * order, so the answer is the same map, entry for entry. Pure (memoized).
 */
export function lazyConceptTable(taxonomy: string): (term: string) => ReadonlyMap<string, number> {
  let lines: { head: string; members: string[]; expanded: string[]; siblings: string[] }[];
  let byInitial: Map<string, number[]>;
  const stems = new Map<string, string>();
  const cs = (word: string) => {
    let s = stems.get(word);
    if (s === undefined) {
      s = conceptStem(word);
      stems.set(word, s);
    }
    return s;
  };
  const prepare = () => {
    const { direct, membersOf } = parseTaxonomy(taxonomy);
    lines = [...direct].map(([head, members]) => ({
      head,
      members,
      expanded: membersOf(head, new Set()),
      siblings: members.filter((m) => !m.startsWith('@')),
    }));
    byInitial = new Map();
    lines.forEach((line, i) => {
      for (const c of new Set([line.head, ...line.expanded].map(conceptStemInitial))) {
        const list = byInitial.get(c) ?? [];
        list.push(i);
        byInitial.set(c, list);
      }
    });
  };
  const answers = new Map<string, ReadonlyMap<string, number>>();
  return (term) => {
    const known = answers.get(term);
    if (known) return known;
    if (lines === undefined) prepare();
    const out = new Map<string, number>();
    const add = (to: string) => {
      if (to !== term && !out.has(to)) out.set(to, RELATED_WEIGHT);
    };
    const initial = term.charAt(0);
    const holds = (word: string) => conceptStemInitial(word) === initial && cs(word) === term;
    for (const i of byInitial.get(initial) ?? []) {
      const { head, expanded, siblings } = lines[i]!;
      // Siblings are members too, so the head and the expanded members cover every word.
      if (!holds(head) && !expanded.some(holds)) continue;
      // The links buildConceptTable makes from `term`, in its order.
      const h = cs(head);
      for (const m of new Set(expanded.map(cs))) {
        if (h === term) add(m);
        if (m === term) add(h);
      }
      const s = siblings.map(cs);
      for (const a of s) if (a === term) for (const b of s) add(b);
    }
    const answer = out.size > 0 ? out : EMPTY;
    answers.set(term, answer);
    return answer;
  };
}

let defaultTable: ((term: string) => ReadonlyMap<string, number>) | undefined;

/** Stemmed terms related to the stemmed term `term`, with their weights (empty when none). */
export function relatedTerms(term: string, table?: ConceptTable): ReadonlyMap<string, number> {
  if (table) return table.get(term) ?? EMPTY;
  defaultTable ??= lazyConceptTable(DEFAULT_TAXONOMY);
  return defaultTable(term);
}

const EMPTY: ReadonlyMap<string, number> = new Map();
