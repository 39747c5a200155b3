import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as Admin from "../../Admin.js"
import { plans } from "../../ServiceConfig.js"
import { CliFailure, ExitCode } from "./failure.js"
import { json, plan, print, withOperations } from "./keys.js"

const describeOrg = (org: Admin.OrgView) =>
  `${org.id}  ${org.name}  plan ${org.plan}  ${org.status}${org.zdr ? "  ZDR" : ""}` +
  (org.credits_remaining === null ? "" : `  credits ${org.credits_remaining}`) +
  (org.credits_per_cycle === null || org.credits_per_cycle === undefined ? "" : ` of ${org.credits_per_cycle}`) +
  (org.requests_per_minute === null || org.requests_per_minute === undefined ? "" : `  ${org.requests_per_minute} req/min`)

const orgArg = Args.text({ name: "ORG" }).pipe(Args.withDescription("Organization id or name"))

const create = (direct: Admin.Direct) =>
  Command.make("create", {
    name: Options.text("name").pipe(Options.withDescription("The organization's name")),
    plan,
    zdr: Options.boolean("zdr").pipe(Options.withDescription("Enable zero data retention")),
    json
  }, (o) =>
    withOperations(direct, (operations) =>
      operations.createOrg({ name: o.name, plan: Option.getOrUndefined(o.plan), zdr: o.zdr || undefined }), "create").pipe(
        Effect.flatMap((org) => print(o.json, org, () => [`Created ${describeOrg(org)}`]))
      )).pipe(Command.withDescription("Create an organization (default plan free)"))

const list = (direct: Admin.Direct) =>
  Command.make("list", { json }, (o) =>
    withOperations(direct, (operations) => operations.listOrgs({})).pipe(
      Effect.flatMap((orgs) => print(o.json, orgs, () => orgs.length === 0 ? ["no organizations"] : orgs.map(describeOrg)))
    )).pipe(Command.withDescription("List organizations"))

const setPlan = (direct: Admin.Direct) =>
  Command.make("set-plan", {
    org: orgArg,
    plan: Args.choice(plans.map((p) => [p, p] as const), { name: "PLAN" }),
    json
  }, (o) =>
    withOperations(direct, (operations) => operations.setPlan({ org: o.org, plan: o.plan })).pipe(
      Effect.flatMap((org) => print(o.json, org, () => [`Updated ${describeOrg(org)}`]))
    )).pipe(Command.withDescription("Move an organization to another plan: its limits, and a new credit cycle (as orgs update --plan)"))

const enableZdr = (direct: Admin.Direct) =>
  Command.make("enable-zdr", { org: orgArg, json }, (o) =>
    withOperations(direct, (operations) => operations.enableZdr({ org: o.org, enabled: true })).pipe(
      Effect.flatMap((org) => print(o.json, org, () => [`Updated ${describeOrg(org)}`]))
    )).pipe(Command.withDescription("Allow zdr=enabled requests for an organization"))

/** A number given on the command line: digits become a number, anything else stays text for the schema to refuse. */
const numberOrText = (text: string): number | string => /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text

const onOff = (text: string): Effect.Effect<boolean, CliFailure> => {
  const value = text.trim().toLowerCase()
  if (value === "on" || value === "true") return Effect.succeed(true)
  if (value === "off" || value === "false") return Effect.succeed(false)
  return Effect.fail(new CliFailure({ errorCode: "INPUT_VALIDATION_ERROR", message: `zdr: on or off, not "${text}"`, exitCode: ExitCode.invalid }))
}

const update = (direct: Admin.Direct) =>
  Command.make("update", {
    org: orgArg,
    plan: Options.text("plan").pipe(Options.optional, Options.withDescription(
      `Move to this plan (${plans.join(", ")}): a new credit cycle starts with the plan's credits`
    )),
    credits: Options.text("credits").pipe(Options.optional, Options.withDescription(
      "Credits per cycle, and the balance now (replaces the plan's; the way to give an enterprise organization credits)"
    )),
    rpm: Options.text("rpm").pipe(Options.optional, Options.withDescription(
      "Requests per minute per key (replaces the plan's limit)"
    )),
    zdr: Options.text("zdr").pipe(Options.optional, Options.withDescription("on or off: allow zdr=enabled requests")),
    json
  }, (o) =>
    Effect.gen(function*() {
      const zdr = Option.isSome(o.zdr) ? yield* onOff(o.zdr.value) : undefined
      // Validated before the database opens: a typo never waits for it or touches it.
      const change = yield* Admin.decodeUpdateOrg({
        org: o.org,
        ...(Option.isSome(o.plan) ? { plan: o.plan.value.trim() } : {}),
        ...(Option.isSome(o.credits) ? { credits: numberOrText(o.credits.value) } : {}),
        ...(Option.isSome(o.rpm) ? { rpm: numberOrText(o.rpm.value) } : {}),
        ...(zdr === undefined ? {} : { zdr })
      }).pipe(Effect.mapError((error) => new CliFailure({ errorCode: error.code, message: error.message, exitCode: ExitCode.invalid })))
      const org = yield* withOperations(direct, (operations) => operations.updateOrg(change))
      yield* print(o.json, org, () => [`Updated ${describeOrg(org)}`])
    })).pipe(Command.withDescription(
      "Change an organization's plan, credits, request limit or ZDR flag (ORG: id or name, as `sift orgs list` shows)"
    ))

/** `sift orgs create|list|update|set-plan|enable-zdr`. */
export const orgsCommand = (direct: Admin.Direct) =>
  Command.make("orgs").pipe(
    Command.withDescription("Manage organizations (same access rules as `sift keys`)"),
    Command.withSubcommands([create(direct), list(direct), update(direct), setPlan(direct), enableZdr(direct)])
  )
