/**
 * A small hand-written thesaurus of everyday and software concepts, used to expand a query by
 * meaning without a model: "pet" also looks for "dog", "dog" also for "pet", "kid" for "child".
 * Each line is `head: members`; `@other` pulls in another concept with all its members.
 * Kept deliberately general (no benchmark vocabulary), and every expansion weighs less than the
 * word itself, so exact matches still win.
 */
import { IRREGULAR_FORMS } from './lemmas.js';
import { porterStem } from './porter.js';

const TAXONOMY = `
child: kid children son daughter baby toddler boy girl youth
family: husband wife spouse @child @parent @grandparent sibling brother sister relative cousin aunt uncle
parent: mom dad mother father
grandparent: grandma grandmother grandpa grandfather granny
pet: dog puppy pup cat kitten hamster guinea rabbit bird parrot fish turtle horse
animal: @pet cow
art: painting paint drawing draw sketch sculpture pottery ceramics mural artwork
music: song band concert album @instrument singing sing
instrument: guitar piano violin drum flute cello saxophone ukulele
sport: soccer football basketball baseball tennis volleyball hockey golf running swimming cycling surfing skiing @martial
exercise: workout gym fitness yoga running jogging
martial: taekwondo karate judo kickboxing boxing jiujitsu
outdoor: hike hiking camping camp climbing mountaineering kayaking fishing
activity: hobby pastime @sport @art @music @outdoor @exercise reading dancing dance cooking gardening volunteering
job: work career employment profession occupation
hurt: injury injured injure pain wound accident
sick: ill illness disease
doctor: physician nurse hospital clinic
trip: travel journey vacation holiday tour visit roadtrip
car: vehicle auto truck
home: house apartment
movie: film cinema
book: novel reading read
happy: glad joyful excited delighted
sad: upset unhappy depressed
relax: destress unwind calm
volunteer: volunteering charity donate donation fundraiser
school: college university class course education study
teacher: mentor coach instructor tutor
friend: buddy pal
gift: present
food: meal dish recipe cook cooking bake baking
photo: photograph picture pic camera
colleague: coworker workmate teammate
event: party festival concert parade fair conference meetup celebration ceremony gathering
money: financial finance income salary budget cash afford
business: company startup venture store shop
relationship: dating boyfriend girlfriend partner married marriage divorce breakup single
religion: religious church faith god prayer spiritual
politics: political policy government election vote
military: army navy veteran soldier
game: gaming videogame console
nature: mountain forest beach lake ocean river park outdoors
help: support assist
learn: study class course lesson workshop
write: writing writer author blog journal poem poetry
health: wellbeing wellness healthy
stress: anxious anxiety overwhelmed pressure stressful
buy: purchase shopping
wedding: marriage married
adopt: adoption foster
country: nation abroad
city: town
like: love enjoy fond favorite adore
start: begin launch open
create: make build design craft
achievement: accomplishment milestone award prize trophy success
challenge: struggle difficulty setback obstacle hardship
goal: dream aspiration ambition plan
competition: tournament contest championship race match
clothes: clothing fashion outfit dress shirt shoes jacket
jewelry: necklace ring bracelet earrings
plant: garden flower flowers tree gardening
drink: coffee tea wine beer juice
dessert: cake cookie cookies pie ice cream chocolate
season: summer winter spring autumn
celebrate: celebration party holiday christmas thanksgiving easter halloween birthday
phone: smartphone computer laptop tablet
social: instagram facebook twitter tiktok youtube
therapy: counseling therapist counselor psychologist
mindfulness: meditation meditate yoga
feel: feeling emotion emotional mood
place: location spot venue
bug: error defect issue failure crash exception regression
test: testing spec e2e unittest
deploy: deployment release ship rollout publish
database: db sql postgres postgresql mysql sqlite schema migration column
repo: repository git github gitlab
config: configuration settings setting
doc: docs documentation readme
dependency: dependencies package library lib npm pnpm yarn pip
function: method
auth: authentication authorization login oauth password credential
container: docker kubernetes k8s pod
monitoring: dashboard metrics alerting observability logging logs
performance: latency throughput perf
frontend: ui css html
`;

/**
 * Weight of a related term relative to the query word itself, the same whether it is narrower
 * ("pet" → "dog"), broader ("dog" → "pet") or a sibling ("dog" → "cat"): on the LoCoMo dev
 * conversations separate weights (0.5–0.9) did no better.
 */
export const RELATED_WEIGHT = 0.7;

export function conceptStem(word: string): string {
  return porterStem(IRREGULAR_FORMS.get(word) ?? word);
}

function build(): Map<string, Map<string, number>> {
  const direct = new Map<string, string[]>();
  for (const line of TAXONOMY.trim().split('\n')) {
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

let cache: Map<string, Map<string, number>> | undefined;

/** Stemmed terms related to the stemmed term `term`, with their weights (empty when none). */
export function relatedTerms(term: string): ReadonlyMap<string, number> {
  cache ??= build();
  return cache.get(term) ?? EMPTY;
}

const EMPTY: ReadonlyMap<string, number> = new Map();
