/**
 * A text parameter given as parts joined by a separator (a batch of JSON records), so the joined text never has to
 * exist as one string on the request thread: PGlite's session encodes the parts straight into the bytes it hands its
 * thread, and node-postgres joins them (`toPostgres`).
 */
export class JoinedText {
  constructor(
    readonly parts: ReadonlyArray<string>,
    readonly separator: string,
    readonly open = "",
    readonly close = ""
  ) {}

  /** The text itself (node-postgres calls this for a parameter object). */
  toPostgres(): string {
    return this.open + this.parts.join(this.separator) + this.close
  }

  /** The text as UTF-8, encoded part by part into one buffer. */
  toUtf8(encoder: { encodeInto(text: string, into: Uint8Array): { written: number } }): Uint8Array {
    const pieces = this.parts.length
    let size = Buffer.byteLength(this.open) + Buffer.byteLength(this.close) + Math.max(0, pieces - 1) * Buffer.byteLength(this.separator)
    for (const part of this.parts) size += Buffer.byteLength(part)
    const bytes = new Uint8Array(size)
    let at = encoder.encodeInto(this.open, bytes).written
    for (let i = 0; i < pieces; i++) {
      if (i > 0) at += encoder.encodeInto(this.separator, bytes.subarray(at)).written
      at += encoder.encodeInto(this.parts[i]!, bytes.subarray(at)).written
    }
    encoder.encodeInto(this.close, bytes.subarray(at))
    return bytes
  }
}
