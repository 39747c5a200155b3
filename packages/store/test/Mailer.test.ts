import { describe, expect, it, layer as testLayer } from "@effect/vitest"
import { Effect, Either, Layer, Redacted } from "effect"
import * as net from "node:net"
import * as Mailer from "../src/Mailer.js"
import * as Migrations from "../src/Migrations.js"
import { backends, title, unique } from "./support/backends.js"

/** A minimal SMTP receiver on 127.0.0.1 (enough of RFC 5321 for one client): records each message's data. */
const smtpReceiver = (options: { refuseRecipient?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.async<{ port: number; messages: Array<{ from: string; to: Array<string>; data: string }>; server: net.Server }>(
      (resume) => {
        const messages: Array<{ from: string; to: Array<string>; data: string }> = []
        const server = net.createServer((socket) => {
          let buffer = ""
          let inData = false
          let current = { from: "", to: [] as Array<string>, data: "" }
          socket.write("220 test ESMTP\r\n")
          socket.on("data", (chunk) => {
            buffer += chunk.toString("utf8")
            let index: number
            while ((index = buffer.indexOf("\r\n")) >= 0) {
              const line = buffer.slice(0, index)
              buffer = buffer.slice(index + 2)
              if (inData) {
                if (line === ".") {
                  inData = false
                  messages.push(current)
                  current = { from: "", to: [], data: "" }
                  socket.write("250 queued\r\n")
                } else current.data += (line.startsWith("..") ? line.slice(1) : line) + "\n"
                continue
              }
              const verb = line.slice(0, 4).toUpperCase()
              if (verb === "EHLO" || verb === "HELO") socket.write("250 test\r\n")
              else if (verb === "MAIL") {
                current.from = line
                socket.write("250 ok\r\n")
              } else if (verb === "RCPT") {
                if (options.refuseRecipient === true) socket.write("550 no such user\r\n")
                else {
                  current.to.push(line)
                  socket.write("250 ok\r\n")
                }
              } else if (verb === "DATA") {
                inData = true
                socket.write("354 go ahead\r\n")
              } else if (verb === "QUIT") socket.end("221 bye\r\n")
              else if (verb === "RSET" || verb === "NOOP") socket.write("250 ok\r\n")
              else socket.write("502 not implemented\r\n")
            }
          })
          socket.on("error", () => {})
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.address() as net.AddressInfo).port, messages, server })))
      }
    ),
    ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

const migrations = { store: Migrations.store, mailer: Mailer.migrations }

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`Mailer on ${title(backend)}`, () => {
    const database = Layer.tap(backend.layer(), (ctx) => Effect.provide(Migrations.run(migrations), ctx))

    testLayer(database, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("without SMTP, a message is recorded in the outbox only", () =>
        Effect.gen(function*() {
          const to = `Owner-${unique()}@Example.com`
          const id = yield* Mailer.send({ to, subject: "Verify your email", text: "code 123456", html: "<b>123456</b>" })
            .pipe(Effect.provide(Mailer.layer()))
          const sent = yield* Mailer.sentTo(to)
          expect(sent).toHaveLength(1)
          expect(sent[0]).toMatchObject({
            id,
            to: to.toLowerCase(),
            subject: "Verify your email",
            text: "code 123456",
            html: "<b>123456</b>",
            transport: "outbox",
            deliveredAt: null,
            error: null
          })
        }))

      it.scoped("with SIFT_SMTP_URL, a message is recorded and delivered over SMTP", () =>
        Effect.gen(function*() {
          const receiver = yield* smtpReceiver()
          const to = `ops-${unique()}@example.com`
          const layer = Mailer.layer({ smtpUrl: Redacted.make(`smtp://127.0.0.1:${receiver.port}`), from: "alerts@sift.test" })
          const id = yield* Mailer.send({ to, subject: "Webhook failing", text: "3 failures in a row" })
            .pipe(Effect.provide(layer))
          expect(receiver.messages).toHaveLength(1)
          const message = receiver.messages[0]!
          expect(message.from).toContain("alerts@sift.test")
          expect(message.to.join()).toContain(to)
          expect(message.data).toContain("Subject: Webhook failing")
          expect(message.data).toContain("3 failures in a row")
          expect(message.data).toContain(`Message-ID: <${id}@sift>`)
          const [row] = yield* Mailer.sentTo(to)
          expect(row?.transport).toBe("smtp")
          expect(row?.deliveredAt).toBeInstanceOf(Date)
          expect(row?.error).toBeNull()
        }))

      it.scoped("an SMTP refusal fails with MailDeliveryError and the outbox row keeps the reason", () =>
        Effect.gen(function*() {
          const receiver = yield* smtpReceiver({ refuseRecipient: true })
          const to = `gone-${unique()}@example.com`
          const layer = Mailer.layer({ smtpUrl: Redacted.make(`smtp://127.0.0.1:${receiver.port}`) })
          const result = yield* Mailer.send({ to, subject: "s", text: "t" }).pipe(Effect.provide(layer), Effect.either)
          expect(Either.isLeft(result)).toBe(true)
          const error = Either.getLeft(result).pipe((o) => o._tag === "Some" ? o.value : undefined)
          expect(error?._tag).toBe("MailDeliveryError")
          expect(receiver.messages).toHaveLength(0)
          const [row] = yield* Mailer.sentTo(to)
          expect(row?.deliveredAt).toBeNull()
          expect(row?.error).toMatch(/550|no such user|recipients/i)
        }))
    })
  })
}
