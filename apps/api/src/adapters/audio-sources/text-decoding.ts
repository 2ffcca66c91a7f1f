import { TextDecoder } from "node:util";

/**
 * Decodes a fetched document. A byte-order mark wins; then an XML document's own declaration
 * (feeds often declare ISO-8859-1 and are served as `text/xml` without a charset), then the
 * Content-Type charset, then an HTML `<meta charset>`, then UTF-8. Labels are the WHATWG
 * encodings `TextDecoder` knows; an unknown label falls back to UTF-8.
 */
export function decodeText(bytes: Uint8Array, contentType: string | null): string {
  const bomEncoding = encodingOfByteOrderMark(bytes);
  if (bomEncoding) return decodeWith(bomEncoding, bytes);
  // Declarations are ASCII, so the head can be read before the encoding is known.
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  const xmlDeclared = /^\s*<\?xml[^>]*\sencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1];
  const headerDeclared = /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  const metaDeclared = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  return decodeWith(xmlDeclared ?? headerDeclared ?? metaDeclared ?? "utf-8", bytes);
}

function encodingOfByteOrderMark(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return null;
}

function decodeWith(label: string, bytes: Uint8Array): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  // TextDecoder drops the byte-order mark itself.
  return decoder.decode(bytes);
}
