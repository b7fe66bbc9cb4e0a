/**
 * The terms memories are indexed and searched by. Kept in src/store/memory-terms.ts, since the
 * store indexes with it and store/ may not import memory/ (a higher layer).
 */
export { MAX_QUERY_TERMS, memoryMatchExpression, memoryTerms } from "../store/memory-terms.ts";
