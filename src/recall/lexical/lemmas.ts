/**
 * Irregular English forms mapped to their base word, applied before stemming: a suffix stripper
 * cannot see that "went" is "go" or "children" is "child", yet questions and memories use both.
 */
const FORMS = `be was were been am is are
go went gone goes
buy bought
bring brought
think thought
teach taught
catch caught
fight fought
seek sought
make made
take took taken
see saw seen
get got gotten
give gave given
run ran
meet met
find found
lose lost
win won
feel felt
leave left
keep kept
sleep slept
send sent
spend spent
build built
lend lent
begin began begun
write wrote written
ride rode ridden
drive drove driven
eat ate eaten
fall fell fallen
know knew known
grow grew grown
throw threw thrown
fly flew flown
draw drew drawn
sing sang sung
swim swam swum
drink drank drunk
speak spoke spoken
break broke broken
choose chose chosen
wake woke woken
wear wore worn
tear tore torn
forget forgot forgotten
hide hid hidden
bite bit bitten
come came
become became
sit sat
stand stood
understand understood
tell told
sell sold
hold held
hear heard
say said
pay paid
mean meant
lead led
feed fed
hang hung
shoot shot
do did done does
have had has
child children
person people
man men
woman women
mouse mice
foot feet
tooth teeth`;

export const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map(
  FORMS.split('\n').flatMap((line) => {
    const [base, ...forms] = line.trim().split(/\s+/);
    return forms.map((form) => [form, base!] as const);
  }),
);
