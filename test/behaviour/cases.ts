/**
 * The behaviour suite: constructed scenes in the bundled world (world-data/default), a partner's
 * line, and what the character should do (LIGHT's table 9: request -> the requested action,
 * question -> a truthful answer, threat -> hit back, flee or scream, sadness -> a hug; and some
 * social reactions the model alone decides).
 *
 * A case passes when the character's turn matches ANY of its `expect` outcomes. A case the model
 * fails is kept, marked `knownFailure: true` with a note, never deleted: the suite fails only when
 * an unmarked case fails, or a marked one starts to pass (then unmark it).
 */

export interface Outcome {
  /** The turn's actions, in order, exactly. */
  actions?: string[];
  /** The turn's first action. */
  action?: string;
  emote?: string;
  /** The utterance matches. */
  says?: RegExp;
  /** The utterance names everything the character holds and nothing it does not (checked on the graph). */
  truthful?: 'all' | 'worn';
  /** No action (an emote is allowed). */
  noAction?: true;
}

export interface BehaviourCase {
  id: string;
  kind: 'request' | 'question' | 'threat' | 'sad' | 'social';
  /** The character under test and the one speaking to it (placed together in `room`, default the character's own room). */
  self: string;
  partner: string;
  room?: string;
  /** Commands run before the line, by either of the two. */
  setup?: { who: 'self' | 'partner'; command: string }[];
  line: string;
  expect: Outcome[];
  knownFailure?: boolean;
  note?: string;
}

const threatened = (partnerName: string): Outcome[] => [
  { action: `hit ${partnerName}` },
  { emote: 'scream' },
  { emote: 'gasp' },
  { emote: 'cry' },
  { emote: 'growl' },
  { action: 'flee' },
];

export const CASES: BehaviourCase[] = [
  // ---- requests -> the requested action -------------------------------------------------------
  { id: 'request-give-rum', kind: 'request', self: 'coast-old-sailor', partner: 'coast-dockhand', line: 'Can you give me the rum?', expect: [{ actions: ['give flask of rum to dockhand'] }] },
  { id: 'request-give-biscuit', kind: 'request', self: 'coast-sea-captain', partner: 'coast-deckhand', line: "Captain, I'm famished. Give me your ship's biscuit, would you?", expect: [{ actions: ["give ship's biscuit to deckhand"] }] },
  { id: 'request-hand-cheese', kind: 'request', self: 'coast-reed-cutter', partner: 'coast-angler', line: 'Hand me that cheese, would you?', expect: [{ actions: ['give heel of cheese to angler'] }] },
  { id: 'request-pass-ale', kind: 'request', self: 'coast-angler', partner: 'coast-reed-cutter', line: 'Pass me the ale, friend.', expect: [{ actions: ['give stone bottle of ale to reed cutter'] }] },
  { id: 'request-two-step-mug', kind: 'request', self: 'town-innkeeper', partner: 'town-barmaid', line: 'Get the clay mug from the bar and give it to me.', expect: [{ actions: ['get clay mug from oak bar', 'give clay mug to barmaid'] }] },
  { id: 'request-two-step-key', kind: 'request', self: 'hill-jailer', partner: 'hill-prisoner', line: 'Take the iron key from the table, then hand it to me. Please!', expect: [{ actions: ['get iron key from heavy table', 'give iron key to chained prisoner'] }] },
  { id: 'request-fetch-apple', kind: 'request', self: 'farm-apple-picker', partner: 'farm-orchard-keeper', line: 'Fetch me a red apple from the barrel.', expect: [{ actions: ['get red apple from apple barrel', 'give red apple to orchard keeper'] }] },
  { id: 'request-fetch-pie', kind: 'request', self: 'town-pie-seller', partner: 'town-crier', line: 'Could you hand me a meat pie?', expect: [{ actions: ['get meat pie from trestle table', 'give meat pie to town crier'] }] },
  { id: 'request-try-on-cloak', kind: 'request', self: 'town-cloth-merchant', partner: 'town-tinker', line: 'Get the woollen cloak from the stall and put it on.', expect: [{ actions: ['get woollen cloak from cloth stall', 'wear woollen cloak'] }] },
  { id: 'request-remove-helmet', kind: 'request', self: 'town-gate-sergeant', partner: 'town-toll-keeper', line: 'Take off your helmet, sergeant, and rest a while.', expect: [{ actions: ['remove iron helmet'] }] },
  { id: 'request-drink-gin', kind: 'request', self: 'hill-mourner', partner: 'hill-marsh-trader', line: "Drink your gin, it'll warm you.", expect: [{ actions: ['drink flask of gin'] }] },
  { id: 'request-eat-pie', kind: 'request', self: 'hill-scholar', partner: 'hill-malgrave', line: 'Eat your pork pie before it goes cold.', expect: [{ actions: ['eat cold pork pie'] }] },
  { id: 'request-put-tray', kind: 'request', self: 'town-barmaid', partner: 'town-innkeeper', line: 'Put the serving tray on the table.', expect: [{ actions: ['put serving tray on scarred table'] }] },
  { id: 'request-drop-purse', kind: 'request', self: 'town-urchin', partner: 'town-crier', line: 'Drop that purse, you little thief!', expect: [{ actions: ['drop embroidered purse'] }] },
  { id: 'request-hug-me', kind: 'request', self: 'farm-farmwife', partner: 'farm-farm-boy', line: 'Give me a hug, mother.', expect: [{ actions: ['hug farm boy'] }] },
  { id: 'request-arm-spear', kind: 'request', self: 'town-toll-keeper', partner: 'town-gate-sergeant', line: 'Take the iron spear from the rack and wield it.', expect: [{ actions: ['get iron spear from spear rack', 'wield iron spear'] }] },
  { id: 'request-not-had', kind: 'request', self: 'coast-fishmonger', partner: 'coast-fishwife', line: 'Give me your ale.', expect: [{ says: /don't have/, noAction: true }] },
  { id: 'request-given-it', kind: 'request', self: 'coast-dockhand', partner: 'coast-old-sailor', setup: [{ who: 'partner', command: 'give flask of rum to dockhand' }], line: 'Now give it back to me, lad.', expect: [{ actions: ['give flask of rum to old sailor'] }], note: '"it" is the rum the partner just gave' },

  // ---- questions -> truthful answers ----------------------------------------------------------
  { id: 'question-carry-angler', kind: 'question', self: 'coast-angler', partner: 'coast-reed-cutter', line: 'What are you carrying?', expect: [{ truthful: 'all' }] },
  { id: 'question-wear-harbourmaster', kind: 'question', self: 'coast-harbourmaster', partner: 'coast-customs-clerk', line: 'What are you wearing?', expect: [{ truthful: 'worn' }] },
  { id: 'question-armed-jory', kind: 'question', self: 'coast-jory-blackwick', partner: 'coast-exciseman', line: 'Are you armed, Blackwick?', expect: [{ says: /boarding dirk/ }] },
  { id: 'question-have-sage', kind: 'question', self: 'farm-herb-girl', partner: 'farm-hedge-witch', line: 'Do you have any sage?', expect: [{ says: /^Yes, I have a bunch of sage/ }] },
  { id: 'question-have-sword', kind: 'question', self: 'farm-herb-girl', partner: 'farm-hedge-witch', line: 'Do you have a sword?', expect: [{ says: /^No, I don't have a sword/ }] },
  { id: 'question-in-bag', kind: 'question', self: 'farm-poacher', partner: 'farm-pilgrim', line: "What's in your game bag?", expect: [{ says: /^My game bag holds a dead rabbit\./ }] },
  { id: 'question-after-gift', kind: 'question', self: 'coast-dockhand', partner: 'coast-old-sailor', setup: [{ who: 'partner', command: 'give flask of rum to dockhand' }], line: 'What have you got now?', expect: [{ truthful: 'all' }] },
  { id: 'question-nothing', kind: 'question', self: 'coast-herring-gull', partner: 'coast-net-mender', line: 'And what are you carrying, bird?', expect: [{ truthful: 'all' }] },
  { id: 'question-baroness', kind: 'question', self: 'town-baroness', partner: 'town-handmaiden', line: 'My lady, what are you wearing to the feast?', expect: [{ truthful: 'worn' }] },
  { id: 'question-show-me', kind: 'question', self: 'town-tinker', partner: 'town-chandler', line: "Show me what you've got, tinker.", expect: [{ truthful: 'all' }] },
  { id: 'question-pockets', kind: 'question', self: 'town-moneylender', partner: 'town-spice-merchant', line: "So, what's in your pockets today?", expect: [{ truthful: 'all' }] },
  { id: 'question-anything-to-eat', kind: 'question', self: 'hill-goatherd', partner: 'hill-young-pilgrim', line: 'Got anything to eat on you?', expect: [{ truthful: 'all' }, { says: /goat cheese/ }] },

  // ---- threats -> hit, flee or scream ---------------------------------------------------------
  { id: 'threat-must-die', kind: 'threat', self: 'hill-tam', partner: 'hill-gravedigger', line: 'You must die!', expect: threatened('gravedigger') },
  { id: 'threat-kill', kind: 'threat', self: 'coast-exciseman', partner: 'coast-rum-runner', line: "I'll kill you, exciseman!", expect: threatened('rum runner') },
  { id: 'threat-prepare', kind: 'threat', self: 'town-castle-guard', partner: 'town-smuggler', room: 'town-castle-gate', line: 'Prepare to die, guard!', expect: threatened('smuggler') },
  { id: 'threat-or-else', kind: 'threat', self: 'town-minstrel', partner: 'town-mercenary', line: 'Stop that racket, or else!', expect: threatened('old mercenary') },
  { id: 'threat-numbered', kind: 'threat', self: 'hill-old-pilgrim', partner: 'hill-priest', line: 'Your days are numbered, old man.', expect: threatened('father anselm'), knownFailure: true, note: 'not in the threat word lists; the model alone answers, and does not pick a hit or a frightened emote' },
  { id: 'threat-throat', kind: 'threat', self: 'farm-pilgrim', partner: 'farm-poacher', line: "I'm going to cut your throat and take your purse.", expect: threatened('poacher'), knownFailure: true, note: '"cut your throat" is not in the threat word lists' },

  // ---- sadness -> a hug -----------------------------------------------------------------------
  { id: 'sad-feeling', kind: 'sad', self: 'hill-gravedigger', partner: 'hill-widow', line: "I'm feeling so sad today.", expect: [{ action: 'hug grieving widow' }] },
  { id: 'sad-lonely', kind: 'sad', self: 'hill-goatherd', partner: 'hill-young-pilgrim', line: 'I am so lonely out here on the hill.', expect: [{ action: 'hug young pilgrim' }] },
  { id: 'sad-died', kind: 'sad', self: 'hill-priest', partner: 'hill-widow', room: 'hill-chapel', line: 'My husband died last winter.', expect: [{ action: 'hug grieving widow' }] },
  { id: 'sad-miss', kind: 'sad', self: 'farm-dairymaid', partner: 'farm-grandmother', line: 'I miss my sister terribly.', expect: [{ action: 'hug old grandmother' }, { emote: 'cry' }] },

  // ---- social reactions: the model alone --------------------------------------------------------
  { id: 'social-greeting', kind: 'social', self: 'town-innkeeper', partner: 'town-minstrel', line: 'Good evening, innkeeper!', expect: [{ emote: 'wave' }, { emote: 'smile' }, { emote: 'nod' }, { emote: 'grin' }], knownFailure: true, note: "the model's best emote for a greeting (grin) stays under the emote threshold; it answers in words only" },
  { id: 'social-farewell', kind: 'social', self: 'farm-drover', partner: 'farm-milkmaid', line: 'Farewell, friend. Safe travels on the road.', expect: [{ emote: 'wave' }, { emote: 'nod' }, { emote: 'smile' }, { action: 'hug milkmaid' }], knownFailure: true, note: 'the model takes off its hat instead of waving; emote scores carry little signal (see thresholds.ts)' },
  { id: 'social-how-are-you', kind: 'social', self: 'coast-dockhand', partner: 'coast-old-sailor', line: 'Morning! How are you keeping?', expect: [{ says: /\b(?:well|getting by|complain|not so bad)\b/i }] },
  { id: 'social-goodbye-said', kind: 'social', self: 'town-castle-guard', partner: 'town-tinker', line: "Right, I'm off now. Goodbye!", expect: [{ says: /\b(?:farewell|goodbye|go well|safe roads|mind how you go)\b/i }] },
  { id: 'social-hello-said', kind: 'social', self: 'hill-gate-warden', partner: 'hill-old-pilgrim', line: 'Hello there!', expect: [{ says: /\b(?:good day|hello|well met|greetings)\b/i }] },
  { id: 'social-joke', kind: 'social', self: 'town-steward', partner: 'town-fool', line: 'Why did the chicken cross the road? To get away from your cooking!', expect: [{ emote: 'laugh' }, { emote: 'grin' }, { emote: 'smile' }, { emote: 'groan' }], knownFailure: true, note: 'the model reaches for the platter of cold meats (its best action) rather than laughing' },
  { id: 'social-thanks', kind: 'social', self: 'town-apothecary', partner: 'town-spice-merchant', line: 'Thank you so much for your help!', expect: [{ emote: 'smile' }, { emote: 'nod' }, { emote: 'blush' }, { action: 'hug spice merchant' }], knownFailure: true, note: 'no emote reaches the threshold after thanks, and the retrieved line is no reply to thanks (a greeting)' },
  { id: 'social-insult', kind: 'social', self: 'farm-farmhand', partner: 'farm-goat', line: 'You stink like a wet dog.', expect: [{ emote: 'frown' }, { emote: 'growl' }, { emote: 'stare' }, { emote: 'pout' }, { emote: 'groan' }, { emote: 'sigh' }], knownFailure: true, note: "the model's best emote stays under the threshold; it answers in words only" },
  { id: 'social-arm-yourself', kind: 'social', self: 'farm-miller', partner: 'farm-mill-apprentice', line: 'Arm yourself, miller! Raiders on the lane!', expect: [{ action: 'wield mill pick' }], knownFailure: true, note: 'the model hands the mill pick to the apprentice instead of wielding it ("arm yourself" is not a request the rules parse)' },
  { id: 'social-hungry', kind: 'social', self: 'farm-mill-apprentice', partner: 'farm-washerwoman', line: "I'm starving, I haven't eaten in days.", expect: [{ action: 'give loaf of brown bread to washerwoman' }] },
  { id: 'social-thirsty', kind: 'social', self: 'farm-milkmaid', partner: 'farm-drover', line: "I'm parched. Haven't had a drop all day.", expect: [{ action: 'give milk pail to drover' }] },
  { id: 'social-dance', kind: 'social', self: 'town-minstrel', partner: 'town-barmaid', line: "Play us a jig and let's dance!", expect: [{ emote: 'dance' }] },
];
