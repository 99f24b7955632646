/**
 * Words that carry no retrieval value in agent conversations: English function words, conversational filler, and
 * the role labels that `compress` writes at the start of every line (`user:`, `assistant:`), which would otherwise
 * top every chunk's term counts. Written for Akashic; lower-case, apostrophes as ASCII `'`.
 *
 * Changing this list changes the keywords of newly written chunks, not of stored ones, so both generations must keep
 * working side by side; that is why matching re-normalizes stored keywords instead of trusting them verbatim.
 *
 * @internal
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `
  a an the this that these those there here it its it's itself
  i me my mine myself we us our ours ourselves you your yours yourself yourselves
  he him his himself she her hers herself they them their theirs themselves one ones
  i'm i've i'd i'll you're you've you'd you'll we're we've we'd we'll they're they've they'd they'll
  he's she's that's there's here's what's who's let's
  am is are was were be been being have has had having do does did doing done
  will would shall should can could may might must ought
  isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't
  shan't shouldn't can't cannot couldn't mustn't mightn't needn't
  and or but nor so yet if then else than because since while whereas although though unless until
  of at by for with without within about against between among into onto through during before after
  above below to from up down in out on off over under again further once upon via per toward towards
  what which who whom whose when where why how whatever whenever wherever however
  all any both each few more most other some such no not only own same too very
  just also even still already ever never always often sometimes usually really quite rather
  much many lot lots bit little less least enough several
  now today tomorrow yesterday soon later
  get gets got getting go goes going gone went make makes made making take takes took
  say says said tell told know knows knew think thinks thought want wants wanted
  like likes liked need needs needed use used using see saw seen look looks looked
  thing things stuff way something anything everything nothing someone anyone everyone
  yes yeah yep no nope ok okay sure right well oh ah hmm um uh wow hey hi hello bye goodbye
  thanks thank please sorry great good nice cool fine
  e.g i.e etc vs
  user assistant system tool function developer
  `
    .split(/\s+/u)
    .filter((word) => word.length > 0),
);
