/**
 * Okapi BM25 ranking over a few hundred short documents (tool names and descriptions). Words
 * are cut at anything but letters and digits, camelCase and snake_case come apart, and runs
 * of CJK characters count as their single characters and pairs, so a Chinese query matches a
 * Chinese description without a word segmenter.
 */

const K1 = 1.2;
const B = 0.75;
const CJK_RUN = /[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff]+/gu;

export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const run of text.match(CJK_RUN) ?? []) {
    const chars = [...run];
    terms.push(...chars);
    for (let i = 0; i + 1 < chars.length; i++) terms.push(chars[i]! + chars[i + 1]!);
  }
  const latin = text
    .replace(CJK_RUN, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
  return [...terms, ...latin];
}

export class Bm25Index<T> {
  private readonly docs: Array<{ item: T; counts: Map<string, number>; length: number }>;
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(items: readonly T[], textOf: (item: T) => string) {
    this.docs = items.map((item) => {
      const terms = searchTerms(textOf(item));
      const counts = new Map<string, number>();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const term of counts.keys())
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      return { item, counts, length: terms.length };
    });
    this.averageLength = this.docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, this.docs.length);
  }

  /** The best `limit` items for the query, best first; items sharing no term with it are left out. */
  search(query: string, limit: number): T[] {
    const terms = [...new Set(searchTerms(query))];
    const total = this.docs.length;
    return this.docs
      .map((doc) => {
        let score = 0;
        for (const term of terms) {
          const frequency = doc.counts.get(term);
          if (!frequency) continue;
          const containing = this.documentFrequency.get(term) ?? 0;
          const idf = Math.log(1 + (total - containing + 0.5) / (containing + 0.5));
          const norm = frequency + K1 * (1 - B + (B * doc.length) / (this.averageLength || 1));
          score += (idf * frequency * (K1 + 1)) / norm;
        }
        return { item: doc.item, score };
      })
      .filter((scored) => scored.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map((scored) => scored.item);
  }
}
