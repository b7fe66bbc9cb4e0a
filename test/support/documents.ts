/**
 * Small, valid document files written from scratch, for the knowledge base's tests: a PDF
 * (Helvetica text, one content stream per page) and a DOCX (a stored zip of the few parts
 * Word needs, with heading styles named as Word names them).
 */
import { deflateRawSync, deflateSync } from "node:zlib";

/** A PDF whose pages each show the given lines of text (ASCII). */
export function tinyPdf(pages: string[][]): Buffer {
  const objects: string[] = [];
  const pageCount = pages.length;
  // 1 catalog, 2 pages, 3 font, then per page: page object, content stream.
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  const kids = pages.map((_, index) => `${4 + index * 2} 0 R`).join(" ");
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`);
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  for (const [index, lines] of pages.entries()) {
    const stream = lines
      .map(
        (line, n) => `BT /F1 12 Tf 72 ${720 - n * 40} Td (${line.replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`,
      )
      .join("\n");
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${5 + index * 2} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`);
  }
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (const [index, object] of objects.entries()) {
    offsets.push(Buffer.byteLength(body));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

/**
 * A PDF of one page whose content stream (deflated to about 0.25 MB) unpacks to `streamMb` MB
 * of one-letter text operations: pdf.js turns each into an object, for a minute and more.
 */
export function textFloodPdf(streamMb = 100): Buffer {
  const op = Buffer.from("BT /F1 1 Tf 0 0 Td (a) Tj ET\n");
  const raw = Buffer.alloc(streamMb * 1024 * 1024, " ");
  for (let at = 0; at + op.length <= raw.length; at += op.length) op.copy(raw, at);
  const packed = deflateSync(raw, { level: 9 });
  const parts: Buffer[] = [];
  let length = 0;
  const offsets: number[] = [];
  const push = (part: Buffer | string) => {
    const bytes = typeof part === "string" ? Buffer.from(part, "latin1") : part;
    parts.push(bytes);
    length += bytes.length;
  };
  push("%PDF-1.4\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>",
  ];
  for (const [index, object] of objects.entries()) {
    offsets.push(length);
    push(`${index + 1} 0 obj\n${object}\nendobj\n`);
  }
  offsets.push(length);
  push(`5 0 obj\n<< /Length ${packed.length} /Filter /FlateDecode >>\nstream\n`);
  push(packed);
  push("\nendstream\nendobj\n");
  const xref = length;
  push(`xref\n0 6\n0000000000 65535 f \n`);
  for (const offset of offsets) push(`${String(offset).padStart(10, "0")} 00000 n \n`);
  push(`trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** A DOCX of a few hundred KB whose document.xml unpacks to `unpackedMb` MB of one-letter paragraphs. */
export function paragraphFloodDocx(unpackedMb = 100): Buffer {
  const paragraph = Buffer.from("<w:p><w:r><w:t>a</w:t></w:r></w:p>");
  const head = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><w:document ${W_NS}><w:body>`);
  const tail = Buffer.from("</w:body></w:document>");
  const body = Buffer.alloc(unpackedMb * 1024 * 1024 - head.length - tail.length, " ");
  for (let at = 0; at + paragraph.length <= body.length; at += paragraph.length) paragraph.copy(body, at);
  return docxOf(
    Buffer.concat([head, body, tail]),
    `<?xml version="1.0" encoding="UTF-8"?><w:styles ${W_NS}/>`,
  );
}

/** One paragraph of a DOCX: a heading of `level` (1-6), or body text. */
export interface DocxParagraph {
  text: string;
  heading?: number;
}

const escapeXml = (text: string) => text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A DOCX holding the paragraphs, headings styled "heading N" as Word's own. */
export function tinyDocx(paragraphs: DocxParagraph[]): Buffer {
  const body = paragraphs
    .map((p) => {
      const style = p.heading === undefined ? "" : `<w:pPr><w:pStyle w:val="Heading${p.heading}"/></w:pPr>`;
      return `<w:p>${style}<w:r><w:t xml:space="preserve">${escapeXml(p.text)}</w:t></w:r></w:p>`;
    })
    .join("");
  const styles = [1, 2, 3, 4, 5, 6]
    .map(
      (n) => `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/></w:style>`,
    )
    .join("");
  return docxOf(
    `<?xml version="1.0" encoding="UTF-8"?><w:document ${W_NS}><w:body>${body}</w:body></w:document>`,
    `<?xml version="1.0" encoding="UTF-8"?><w:styles ${W_NS}>${styles}</w:styles>`,
  );
}

const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A DOCX of these two parts and the few Word needs beside them. */
function docxOf(document: string | Buffer, styles: string): Buffer {
  return zip({
    "[Content_Types].xml":
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
    "_rels/.rels":
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    "word/_rels/document.xml.rels":
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
    "word/document.xml": document,
    "word/styles.xml": styles,
  });
}

/** A zip archive of the files (deflated), as Office writes them. */
function zip(files: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(packed.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(header, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += header.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
