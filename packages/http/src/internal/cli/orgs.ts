import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import type * as Admin from "../../Admin.js"
import { plans } from "../../ServiceConfig.js"
import { json, plan, print, withOperations } from "./keys.js"

const describeOrg = (org: Admin.OrgView) =>
  `${org.id}  ${org.name}  plan ${org.plan}  ${org.status}${org.zdr ? "  ZDR" : ""}` +
  (org.credits_remaining === null ? "" : `  credits ${org.credits_remaining}`)

const orgArg = Args.text({ name: "ORG" }).pipe(Args.withDescription("Organization id or name"))

const create = (direct: Admin.Direct) =>
  Command.make("create", {
    name: Options.text("name").pipe(Options.withDescription("The organization's name")),
    plan,
    zdr: Options.boolean("zdr").pipe(Options.withDescription("Enable zero data retention")),
    json
  }, (o) =>
    withOperations(direct, (operations) =>
      operations.createOrg({ name: o.name, plan: Option.getOrUndefined(o.plan), zdr: o.zdr || undefined })).pipe(
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
    )).pipe(Command.withDescription("Move an organization to another plan (starts a new credit cycle)"))

const enableZdr = (direct: Admin.Direct) =>
  Command.make("enable-zdr", { org: orgArg, json }, (o) =>
    withOperations(direct, (operations) => operations.enableZdr({ org: o.org, enabled: true })).pipe(
      Effect.flatMap((org) => print(o.json, org, () => [`Updated ${describeOrg(org)}`]))
    )).pipe(Command.withDescription("Allow zdr=enabled requests for an organization"))

/** `sift orgs create|list|set-plan|enable-zdr`. */
export const orgsCommand = (direct: Admin.Direct) =>
  Command.make("orgs").pipe(
    Command.withDescription("Manage organizations (same access rules as `sift keys`)"),
    Command.withSubcommands([create(direct), list(direct), setPlan(direct), enableZdr(direct)])
  )
