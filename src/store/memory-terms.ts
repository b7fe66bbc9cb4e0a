/**
 * The terms memories are indexed and searched by: one tokenizer for both sides, so a query
 * matches exactly what indexing produced.
 *
 * - Runs of CJK characters (Han, kana, Hangul) give every overlapping 2-character bigram
 *   (`下周二` → `下周`, `周二`); a lone CJK character gives itself.
 * - Other letters and digits give lower-cased words of at least 2 characters.
 *
 * Why not FTS5's `trigram` tokenizer: Chinese words are mostly 2 characters (成都, 下周, 张三),
 * and a trigram index cannot match a query shorter than 3 characters, nor a 2-character word
 * written next to different neighbours in the query (`我下周去哪里` shares no trigram with
 * `下周二要去成都出差`). Bigrams match both.
 */

const WORD_RUNS = /[\p{L}\p{N}]+/gu;
const CJK_OR_OTHER =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]+|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]+/gu;
const CJK = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u;
const MIN_WORD_LENGTH = 2;

/** At most this many distinct terms of a query are matched: a pasted essay stays one cheap search. */
export const MAX_QUERY_TERMS = 64;

/** The terms of `text` in order, repeats kept (BM25 counts them). */
export function memoryTerms(text: string): string[] {
  const terms: string[] = [];
  // NFKC folds full-width letters and digits (ＡＢＣ１２) into their ordinary forms.
  for (const [run] of text.normalize("NFKC").toLowerCase().matchAll(WORD_RUNS)) {
    for (const [part] of run.matchAll(CJK_OR_OTHER)) {
      if (CJK.test(part)) pushBigrams(Array.from(part), terms);
      else if (Array.from(part).length >= MIN_WORD_LENGTH) terms.push(part);
    }
  }
  return terms;
}

function pushBigrams(characters: string[], terms: string[]): void {
  if (characters.length === 1) {
    terms.push(characters[0] as string);
    return;
  }
  for (let i = 0; i + 1 < characters.length; i++) terms.push(`${characters[i]}${characters[i + 1]}`);
}

/** What a memory is indexed by: its subject's name and its content, as terms. */
export function memoryEntryTerms(subjectName: string, content: string): string[] {
  return memoryTerms(`${subjectName} ${content}`);
}

/** The terms a search for `query` matches: its distinct terms, the first MAX_QUERY_TERMS. */
export function memoryQueryTerms(query: string): string[] {
  return [...new Set(memoryTerms(query))].slice(0, MAX_QUERY_TERMS);
}

/**
 * An FTS5 MATCH expression for `query`: any of its query terms, each quoted; undefined when the
 * query has no term (then nothing can match).
 * Terms hold only letters and digits, so quoting needs no escaping.
 */
export function memoryMatchExpression(query: string): string | undefined {
  const terms = memoryQueryTerms(query);
  return terms.length === 0 ? undefined : terms.map((term) => `"${term}"`).join(" OR ");
}
