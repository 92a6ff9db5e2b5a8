// PEM text split into its blocks, as CA bundles and GitHub App private keys arrive in inputs.
const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

export interface PemBlock {
  readonly type: string;
  readonly der: Buffer;
}

export function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(BLOCK)].map((m) => ({ type: m[1]!, der: Buffer.from(m[2]!.replace(/[^A-Za-z0-9+/=]/g, ""), "base64") }));
}
