/** One block of a document's text: a heading (with its level, 1 the highest) or a paragraph. */
export interface TextBlock {
  text: string;
  /** Set for a heading: 1 (`#`, `<h1>`) to 6. */
  level?: number;
  /** The PDF page it is on (1-based). */
  page?: number;
}

/** What is read of linkedom's DOM (the project's TypeScript has no DOM library). */
interface DomNode {
  nodeType: number;
  textContent: string | null;
}
interface DomElement extends DomNode {
  tagName: string;
  children: ArrayLike<DomElement>;
  childNodes: ArrayLike<DomNode>;
}
interface DomDocument {
  title?: string;
  documentElement: DomElement | null;
  body: DomElement;
}
const TEXT_NODE = 3;

const HEADING = /^H([1-6])$/;
/** Elements read as one paragraph each; their text is taken whole. */
const PARAGRAPHS = new Set(["P", "LI", "PRE", "BLOCKQUOTE", "TD", "TH", "DT", "DD", "FIGCAPTION", "CAPTION"]);

/**
 * The deepest nesting read: readability's cost grows with the cube of the depth (a 7.5 KB page
 * of 700 nested `<div>`s took 22 s); pages people write nest a few dozen deep.
 */
export const MAX_HTML_DEPTH = 256;
/** The most elements read of one page or document. */
export const MAX_HTML_ELEMENTS = 100_000;

/**
 * Refuses a parsed page nested deeper than {@link MAX_HTML_DEPTH} or holding more than
 * {@link MAX_HTML_ELEMENTS} elements, walking it without recursion; parsing itself is linear.
 */
function checkShape(root: DomElement): void {
  const pending: Array<[DomElement, number]> = [[root, 1]];
  let elements = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [element, depth] = next;
    elements += 1;
    if (depth > MAX_HTML_DEPTH) throw new Error(`elements nested over ${MAX_HTML_DEPTH} deep, not read`);
    if (elements > MAX_HTML_ELEMENTS) throw new Error(`over ${MAX_HTML_ELEMENTS} elements, not read`);
    for (const child of Array.from(element.children)) pending.push([child, depth + 1]);
  }
}

/** Whitespace runs as one space, as a browser shows them. */
export function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The main text of a web page (readability: navigation, footers and ads left out) with its
 * title, as blocks; a page readability finds no article in is read whole. Runs in a worker
 * thread (readers.ts): a page too deep or too large is refused before readability reads it.
 */
export async function mainTextBlocks(html: string): Promise<{ title: string; blocks: TextBlock[] }> {
  // The DOM and readability load with the first page or HTML document, not at start-up.
  const [{ parseHTML }, { Readability }] = await Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
  ]);
  const document = parseHTML(html).document as unknown as DomDocument;
  if (document.documentElement) checkShape(document.documentElement);
  const title = collapseSpaces(document.title ?? "");
  const article = new Readability(
    document as unknown as ConstructorParameters<typeof Readability>[0],
  ).parse();
  const blocks = await htmlBlocks(article?.content ?? html);
  return { title: collapseSpaces(article?.title ?? "") || title, blocks };
}

/** Headings and paragraphs of an HTML fragment, in document order. */
export async function htmlBlocks(html: string): Promise<TextBlock[]> {
  const { parseHTML } = await import("linkedom");
  const document = parseHTML(`<!doctype html><html><body>${html}</body></html>`)
    .document as unknown as DomDocument;
  checkShape(document.body);
  const blocks: TextBlock[] = [];
  const visit = (element: DomElement): void => {
    const heading = HEADING.exec(element.tagName);
    if (heading || PARAGRAPHS.has(element.tagName)) {
      const text = collapseSpaces(element.textContent ?? "");
      if (text !== "") blocks.push(heading ? { text, level: Number(heading[1]) } : { text });
      return;
    }
    if (element.tagName === "SCRIPT" || element.tagName === "STYLE") return;
    for (const child of Array.from(element.children)) visit(child);
    // Text directly inside a container (a <div> with no <p>) is a paragraph of its own.
    const own = Array.from(element.childNodes)
      .filter((node) => node.nodeType === TEXT_NODE)
      .map((node) => node.textContent ?? "")
      .join(" ");
    if (collapseSpaces(own) !== "") blocks.push({ text: collapseSpaces(own) });
  };
  visit(document.body);
  return blocks;
}
