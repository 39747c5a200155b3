/**
 * Outgoing email. Every message is written to the `outbox` table first (the record of what was sent, and the stand-in
 * for SMTP where none is configured: tests and single-node installs read it there); with `SIFT_SMTP_URL` set it is also
 * delivered over SMTP (nodemailer) and the row records when, or why not.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type * as nodemailer from "nodemailer"
import { createRequire } from "node:module"

/** One message. */
export interface Message {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html?: string | undefined
}

/** A message as recorded in the outbox. */
export interface OutboxEntry {
  readonly id: string
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string | null
  readonly transport: "outbox" | "smtp"
  readonly deliveredAt: Date | null
  readonly error: string | null
  readonly createdAt: Date
}

/**
 * The message is in the outbox but the SMTP server refused it or could not be reached.
 *
 * @category errors
 */
export class MailDeliveryError extends Schema.TaggedError<MailDeliveryError>()("MailDeliveryError", {
  id: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `mail ${this.id} not delivered: ${this.reason}`
  }
}

/**
 * Sends email. `send` answers with the outbox id once the message is recorded (and, with SMTP, accepted by the server).
 *
 * @category services
 */
export class Mailer extends Context.Tag("@sift/store/Mailer")<Mailer, {
  readonly send: (message: Message) => Effect.Effect<string, MailDeliveryError | SqlError>
}>() {}

/** The outbox table, registered under the `mailer` key of the migrations. */
export const migrations = {
  "0001_outbox": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE outbox (
      id text PRIMARY KEY,
      recipient text NOT NULL,
      subject text NOT NULL,
      body_text text NOT NULL,
      body_html text,
      transport text NOT NULL DEFAULT 'outbox',
      delivered_at timestamptz,
      error text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX outbox_recipient ON outbox (recipient, created_at)`.unprepared)
}

/** Options of the mailer. */
export interface Options {
  /** `smtp://user:pass@host:port` or `smtps://…`; unset keeps mail in the outbox only. */
  readonly smtpUrl?: Redacted.Redacted<string> | undefined
  /** The sender address (default `sift@localhost`). */
  readonly from?: string | undefined
}

/**
 * Builds the mailer over the `SqlClient` in context.
 *
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Mailer["Type"], never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const from = options.from ?? "sift@localhost"
    // One pooled-less transport per process; nodemailer opens a connection per message, which suits rare mail.
    // nodemailer is loaded only when mail goes out over SMTP (without it mail stays in the outbox table).
    const transport = options.smtpUrl === undefined
      ? undefined
      : (createRequire(import.meta.url)("nodemailer") as typeof nodemailer).createTransport(Redacted.value(options.smtpUrl))
    const send = (message: Message) =>
      Effect.gen(function*() {
        const id = randomUUID()
        yield* sql`INSERT INTO outbox ${sql.insert({
          id,
          recipient: message.to.toLowerCase(),
          subject: message.subject,
          body_text: message.text,
          body_html: message.html ?? null,
          transport: transport === undefined ? "outbox" : "smtp"
        })}`
        if (transport === undefined) return id
        const sent = yield* Effect.tryPromise(() =>
          transport.sendMail({
            from,
            to: message.to,
            subject: message.subject,
            text: message.text,
            ...(message.html === undefined ? {} : { html: message.html }),
            messageId: `<${id}@sift>`
          })
        ).pipe(Effect.either)
        if (sent._tag === "Left") {
          const reason = String((sent.left.error as Error)?.message ?? sent.left.error)
          yield* sql`UPDATE outbox SET error = ${reason} WHERE id = ${id}`
          return yield* Effect.fail(new MailDeliveryError({ id, reason }))
        }
        yield* sql`UPDATE outbox SET delivered_at = now() WHERE id = ${id}`
        return id
      })
    return Mailer.of({ send })
  })

/**
 * The mailer with the given options.
 *
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Mailer, never, SqlClient.SqlClient> =>
  Layer.effect(Mailer, make(options))

/**
 * Reads `SIFT_SMTP_URL` (unset: outbox only) and `SIFT_MAIL_FROM` (default `sift@localhost`) through `Config`.
 *
 * @category layers
 */
export const layerConfig = (): Layer.Layer<Mailer, never, SqlClient.SqlClient> =>
  Layer.effect(
    Mailer,
    Effect.gen(function*() {
      const smtpUrl = yield* Config.option(Config.redacted("SIFT_SMTP_URL"))
      const from = yield* Config.withDefault(Config.string("SIFT_MAIL_FROM"), "sift@localhost")
      return yield* make({ smtpUrl: Option.getOrUndefined(smtpUrl), from })
    }).pipe(Effect.orDie)
  )

/** Sends a message through the `Mailer` in context. */
export const send = (message: Message) => Effect.flatMap(Mailer, (mailer) => mailer.send(message))

/** The messages sent to one address, newest first (what tests and operators read without SMTP). */
export const sentTo = (address: string): Effect.Effect<ReadonlyArray<OutboxEntry>, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<OutboxEntry>`
      SELECT id, recipient AS "to", subject, body_text AS "text", body_html AS "html", transport,
        delivered_at AS "deliveredAt", error, created_at AS "createdAt"
      FROM outbox WHERE recipient = ${address.toLowerCase()} ORDER BY created_at DESC, id`)
