import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";

const pemCertificate = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificate authorities Node's upstream TLS connections trust when `VERBATIM_CA_FILE` names
 * a PEM file: Node's bundled roots plus the file's (a TLS-inspecting egress proxy, a private CA).
 * Undefined when it is unset, so Node's defaults apply. Read once, at start-up; a file that cannot
 * be read or holds no certificate stops the start with the reason.
 */
export function caCertificatesFrom(env: Record<string, string | undefined>): readonly string[] | undefined {
  const path = env.VERBATIM_CA_FILE?.trim();
  if (!path) return undefined;
  let pem: string;
  try {
    pem = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`VERBATIM_CA_FILE names ${path}, which cannot be read (${code ?? String(error)})`);
  }
  const certificates = pem.match(pemCertificate) ?? [];
  if (certificates.length === 0) {
    throw new Error(`VERBATIM_CA_FILE names ${path}, which holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  certificates.forEach((certificate, index) => {
    try {
      new X509Certificate(certificate);
    } catch (error) {
      throw new Error(`VERBATIM_CA_FILE names ${path}, whose certificate ${index + 1} does not parse (${error})`);
    }
  });
  return [...rootCertificates, ...certificates];
}
