/**
 * Browser actions (decisions §4): at most five, run in order after the page loads, each with a verified outcome. The
 * `perform` instruction follows a small grammar, understood without any model:
 *
 * ```
 * click <target>                 hover <target>
 * type "<text>" into <target>    select "<option>" in <target>   (also "from")
 * press <key>                    (Enter, Tab, Escape, ArrowDown, Control+A, ...)
 * target := "<visible text>" | text "<t>" | label "<t>" | role <role> ["<name>"] | css <selector> | <selector>
 * ```
 *
 * A bare target starting with `#`, `.`, `[` or containing `>`, `=` or `:` is a CSS selector; any other bare word is
 * visible text. A click that changes nothing (same URL and DOM) is `failed` with a reason, so callers never mistake
 * a no-op for a success.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type { Locator, Page } from "playwright-core"
import type * as ScrapeRequest from "./ScrapeRequest.js"

// Functions passed to `page.evaluate` run in the browser; these names are the page's globals (core has no DOM types).
declare const document: any, location: any, innerWidth: number, innerHeight: number, scrollX: number, scrollY: number
declare const getComputedStyle: (el: any) => any, scrollTo: (x: number, y: number) => void, requestAnimationFrame: (f: () => void) => void

/** What happened to one action. @category models */
export interface ActionOutcome {
  /** The action as the caller wrote it (the instruction, or a short description for wait/scroll/waitFor). */
  readonly instruction: string
  readonly status: "applied" | "failed" | "skipped"
  /** How the target was found: `text`, `label`, `role`, `css`, or the kind of action. */
  readonly method?: string
  readonly targetDescription?: string
  readonly durationMs?: number
  readonly error?: string
}

/** Where an instruction points. @category models */
export type Target =
  | { readonly by: "text"; readonly text: string }
  | { readonly by: "label"; readonly text: string }
  | { readonly by: "role"; readonly role: string; readonly name: string | undefined }
  | { readonly by: "css"; readonly selector: string }

/** A parsed `perform` instruction. @category models */
export type Instruction =
  | { readonly verb: "click" | "hover"; readonly target: Target }
  | { readonly verb: "type"; readonly text: string; readonly target: Target }
  | { readonly verb: "select"; readonly option: string; readonly target: Target }
  | { readonly verb: "press"; readonly key: string }

const QUOTED = /^"((?:[^"\\]|\\.)*)"|^'((?:[^'\\]|\\.)*)'/

const unquote = (text: string): { value: string; rest: string } | undefined => {
  const match = QUOTED.exec(text)
  if (match === null) return undefined
  return { value: (match[1] ?? match[2] ?? "").replace(/\\(.)/g, "$1"), rest: text.slice(match[0].length).trim() }
}

const looksLikeCss = (text: string) => /^[#.[]/.test(text) || /[>=:]/.test(text)

/** Parses a target phrase. */
export const parseTarget = (text: string): Either.Either<Target, string> => {
  const trimmed = text.trim()
  if (trimmed === "") return Either.left("a target is missing")
  const quoted = unquote(trimmed)
  if (quoted !== undefined && quoted.rest === "") return Either.right({ by: "text", text: quoted.value })
  const [word, ...restWords] = trimmed.split(/\s+/)
  const rest = trimmed.slice(word!.length).trim()
  switch (word!.toLowerCase()) {
    case "text":
    case "label": {
      const inner = unquote(rest)
      const value = inner?.value ?? rest
      if (value === "") return Either.left(`${word} needs a quoted text`)
      return Either.right({ by: word!.toLowerCase() as "text" | "label", text: value })
    }
    case "role": {
      const role = restWords[0]
      if (role === undefined) return Either.left("role needs a role name, e.g. role button \"Save\"")
      const name = unquote(rest.slice(role.length).trim())
      return Either.right({ by: "role", role: role.toLowerCase(), name: name?.value })
    }
    case "css":
      return rest === "" ? Either.left("css needs a selector") : Either.right({ by: "css", selector: rest })
  }
  return Either.right(looksLikeCss(trimmed) ? { by: "css", selector: trimmed } : { by: "text", text: trimmed })
}

/** Parses a `perform` instruction; `Left` says what is wrong with it. */
export const parse = (instruction: string): Either.Either<Instruction, string> => {
  const trimmed = instruction.trim()
  const verb = trimmed.split(/\s+/)[0]!.toLowerCase()
  const rest = trimmed.slice(verb.length).trim()
  switch (verb) {
    case "click":
    case "hover":
      return Either.map(parseTarget(rest), (target) => ({ verb, target }))
    case "press":
      return rest === "" || /\s/.test(rest) ? Either.left("press needs one key, e.g. press Enter") : Either.right({ verb, key: rest })
    case "type":
    case "select": {
      const value = unquote(rest)
      if (value === undefined) return Either.left(`${verb} needs a quoted ${verb === "type" ? "text" : "option"} first`)
      const joiner = /^(into|in|from)\s+/i.exec(value.rest)
      if (joiner === null) return Either.left(`${verb} "…" needs ${verb === "type" ? "into" : "in"} <target>`)
      const target = parseTarget(value.rest.slice(joiner[0].length))
      return Either.map(target, (target) =>
        verb === "type" ? { verb, text: value.value, target } : { verb, option: value.value, target })
    }
  }
  return Either.left(`unknown verb "${verb}": use click, type, press, select or hover`)
}

/** A short human description of a target. */
export const describeTarget = (target: Target): string => {
  switch (target.by) {
    case "text":
      return `text "${target.text}"`
    case "label":
      return `label "${target.text}"`
    case "role":
      return target.name === undefined ? `role ${target.role}` : `role ${target.role} "${target.name}"`
    case "css":
      return `css ${target.selector}`
  }
}

const locate = (page: Page, target: Target): Locator => {
  switch (target.by) {
    case "text": {
      // Prefer a control with that name; fall back to any element showing the text.
      const control = page.getByRole("button", { name: target.text }).or(page.getByRole("link", { name: target.text }))
      return control.or(page.getByText(target.text, { exact: false })).first()
    }
    case "label":
      return page.getByLabel(target.text).first()
    case "role":
      return page.getByRole(target.role as Parameters<Page["getByRole"]>[0], target.name === undefined ? {} : { name: target.name }).first()
    case "css":
      return page.locator(target.selector).first()
  }
}

/** A cheap fingerprint of what a person sees: URL, DOM size and text. */
const fingerprint = (page: Page): Promise<string> =>
  page.evaluate(() => `${location.href}|${document.documentElement.outerHTML.length}|${document.body?.innerText ?? ""}`)
    .catch(() => "navigating")

const describeAction = (action: ScrapeRequest.Action): string => {
  switch (action.type) {
    case "wait":
      return `wait ${action.milliseconds} ms`
    case "perform":
      return action.action
    case "scroll":
      return `scroll ${action.direction ?? "down"} ${action.amount ?? "viewport"}${action.selector === undefined ? "" : ` in ${action.selector}`}`
    case "waitFor":
      return `waitFor ${action.selector}`
  }
}

const errorText = (error: unknown) => error instanceof Error ? error.message.split("\n")[0]! : String(error)

const performOne = async (page: Page, instruction: Instruction, timeoutMs: number): Promise<Omit<ActionOutcome, "instruction" | "durationMs">> => {
  if (instruction.verb === "press") {
    await page.keyboard.press(instruction.key)
    return { status: "applied", method: "press", targetDescription: instruction.key }
  }
  const target = locate(page, instruction.target)
  const described = { method: instruction.target.by, targetDescription: describeTarget(instruction.target) }
  const count = await target.count()
  if (count === 0) return { status: "failed", ...described, error: "no element matches the target" }
  switch (instruction.verb) {
    case "click": {
      const before = await fingerprint(page)
      await target.click({ timeout: timeoutMs })
      // Give the page's handlers a moment to react before judging the outcome.
      await page.waitForLoadState("domcontentloaded", { timeout: Math.min(timeoutMs, 5_000) }).catch(() => undefined)
      let after = await fingerprint(page)
      for (let i = 0; i < 10 && after === before; i++) {
        await page.waitForTimeout(50)
        after = await fingerprint(page)
      }
      return after === before
        ? { status: "failed", ...described, error: "the click changed nothing on the page" }
        : { status: "applied", ...described }
    }
    case "hover":
      await target.hover({ timeout: timeoutMs })
      return { status: "applied", ...described }
    case "type": {
      await target.fill(instruction.text, { timeout: timeoutMs })
      const value = await target.inputValue({ timeout: timeoutMs }).catch(() => undefined)
      return value === instruction.text
        ? { status: "applied", ...described }
        : { status: "failed", ...described, error: "the field does not hold the typed text" }
    }
    case "select": {
      const chosen = await target.selectOption({ label: instruction.option }, { timeout: timeoutMs })
        .catch(() => target.selectOption(instruction.option, { timeout: timeoutMs }))
      return chosen.length > 0
        ? { status: "applied", ...described }
        : { status: "failed", ...described, error: `no option "${instruction.option}"` }
    }
  }
}

const scroll = async (page: Page, action: Extract<ScrapeRequest.Action, { type: "scroll" }>): Promise<Omit<ActionOutcome, "instruction" | "durationMs">> => {
  const times = action.maxScrolls ?? 1
  const result = await page.evaluate(async ({ direction, amount, selector, times }) => {
    const box = selector === undefined ? document.scrollingElement ?? document.documentElement : document.querySelector(selector)
    if (box === null) return { moved: false, error: `no element matches ${selector}` }
    const horizontal = direction === "left" || direction === "right"
    const sign = direction === "up" || direction === "left" ? -1 : 1
    const position = () => horizontal ? box.scrollLeft : box.scrollTop
    const start = position()
    for (let i = 0; i < times; i++) {
      const size = horizontal ? box.clientWidth || innerWidth : box.clientHeight || innerHeight
      const full = horizontal ? box.scrollWidth : box.scrollHeight
      const step = amount === "max" ? full : amount === "viewport" || amount === undefined ? size : amount
      const before = position()
      if (horizontal) box.scrollLeft = before + sign * step
      else box.scrollTop = before + sign * step
      // Let lazy loaders and infinite lists react before the next step.
      await new Promise((resolve) => setTimeout(resolve, 150))
      if (position() === before && (horizontal ? box.scrollWidth : box.scrollHeight) === full) break
    }
    return { moved: position() !== start, error: undefined }
  }, { direction: action.direction ?? "down", amount: action.amount, selector: action.selector, times })
  if (result.error !== undefined) return { status: "failed", method: "scroll", error: result.error }
  return result.moved
    ? { status: "applied", method: "scroll", ...(action.selector === undefined ? {} : { targetDescription: `css ${action.selector}` }) }
    : { status: "failed", method: "scroll", error: "the page did not move (already at the end, or nothing to scroll)" }
}

/** Runs one action on the page within `timeoutMs`; never throws (a failure is an outcome). */
export const run = async (page: Page, action: ScrapeRequest.Action, timeoutMs: number): Promise<ActionOutcome> => {
  const started = Date.now()
  const instruction = describeAction(action)
  const done = (outcome: Omit<ActionOutcome, "instruction" | "durationMs">): ActionOutcome => ({
    instruction,
    ...outcome,
    durationMs: Date.now() - started
  })
  try {
    switch (action.type) {
      case "wait":
        await page.waitForTimeout(action.milliseconds)
        return done({ status: "applied", method: "wait" })
      case "waitFor":
        return await page.waitForSelector(action.selector, { state: "visible", timeout: timeoutMs }).then(
          () => done({ status: "applied", method: "waitFor", targetDescription: `css ${action.selector}` }),
          (error) => done({ status: "failed", method: "waitFor", targetDescription: `css ${action.selector}`, error: errorText(error) })
        )
      case "scroll":
        return done(await scroll(page, action))
      case "perform": {
        const parsed = parse(action.action)
        if (Either.isLeft(parsed)) return done({ status: "failed", method: "perform", error: parsed.left })
        return done(await performOne(page, parsed.right, timeoutMs))
      }
    }
  } catch (error) {
    return done({ status: "failed", error: errorText(error) })
  }
}

/** The outcome of an action that never ran because an earlier one failed or time ran out. */
export const skipped = (action: ScrapeRequest.Action, reason: string): ActionOutcome => ({
  instruction: describeAction(action),
  status: "skipped",
  error: reason
})
