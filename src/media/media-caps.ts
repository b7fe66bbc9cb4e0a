/** Turns remembered for the per-turn count: more run at once only in a very busy process. */
const MAX_TURNS_REMEMBERED = 1_000;

/** The caps of one kind of media a turn makes (`media.tts`, `media.images`); 0 per member means none. */
export interface MediaCapSettings {
  maxPerTurn: number;
  maxPerDay: number;
  userMaxPerDay: number;
}

/** Who asks: the turn, and the member who started it (absent outside such turns). */
export interface MediaCapClaim {
  replyId: string;
  userKey?: string;
}

/**
 * How many voice messages or pictures may still be made: per turn, per member per day and in
 * all per day, counted in memory (per local calendar day) as each is tried, whatever its
 * outcome: a model call costs whether or not its result is sent.
 */
export class MediaCaps {
  private day = "";
  private total = 0;
  private readonly byUser = new Map<string, number>();
  private readonly byTurn = new Map<string, number>();

  /** `keyPrefix` names the caps in what a refusal says (`media.tts`); `today` is for tests. */
  constructor(
    private readonly keyPrefix: string,
    private readonly settings: () => MediaCapSettings,
    private readonly today: () => string = () => new Date().toDateString(),
  ) {}

  /** Takes one; the cap that refuses it (its key and value), or undefined when taken. */
  take(claim: MediaCapClaim): string | undefined {
    const { maxPerTurn, maxPerDay, userMaxPerDay } = this.settings();
    const today = this.today();
    if (today !== this.day) {
      this.day = today;
      this.total = 0;
      this.byUser.clear();
    }
    const turn = this.byTurn.get(claim.replyId) ?? 0;
    if (turn >= maxPerTurn) return `${this.keyPrefix}.maxPerTurn (${maxPerTurn}) reached in this turn`;
    if (this.total >= maxPerDay) return `${this.keyPrefix}.maxPerDay (${maxPerDay}) reached today`;
    const user = claim.userKey === undefined ? 0 : (this.byUser.get(claim.userKey) ?? 0);
    if (userMaxPerDay > 0 && claim.userKey !== undefined && user >= userMaxPerDay) {
      return `${this.keyPrefix}.userMaxPerDay (${userMaxPerDay}) reached today for this member`;
    }
    if (this.byTurn.size >= MAX_TURNS_REMEMBERED) this.byTurn.clear();
    this.byTurn.set(claim.replyId, turn + 1);
    this.total++;
    if (claim.userKey !== undefined) this.byUser.set(claim.userKey, user + 1);
    return undefined;
  }
}
