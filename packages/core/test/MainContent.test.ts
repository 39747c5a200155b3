import { describe, expect, it } from "@effect/vitest"
import type { Element, Root, RootContent } from "hast"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Html from "../src/Html.js"
import * as MainContent from "../src/MainContent.js"

const fixtures = join(import.meta.dirname, "fixtures", "main-content")

const textOf = (node: Root | RootContent): string =>
  node.type === "text" ? node.value : "children" in node ? node.children.map(textOf).join(" ") : ""
const collapse = (s: string) => s.replace(/\s+/gu, " ").trim()
const elements = (node: Root | RootContent, tag: string): Array<Element> => {
  const found: Array<Element> = []
  const walk = (n: Root | RootContent) => {
    if (n.type === "element" && n.tagName === tag) found.push(n)
    if ("children" in n) n.children.forEach(walk)
  }
  walk(node)
  return found
}

interface Case {
  readonly name: string
  readonly keep: ReadonlyArray<string>
  readonly drop: ReadonlyArray<string>
  readonly fallback?: boolean
  readonly check?: (tree: Root) => void
}

const cases: ReadonlyArray<Case> = [
  {
    name: "news-article",
    keep: [
      "reopened to traffic on Monday morning",
      "What changed",
      "A separated lane for bicycles and scooters",
      "slightly under budget"
    ],
    drop: ["The Daily Tide", "Sport", "Most read", "Mayor resigns", "Related stories", "Ferry service", "3 comments",
      "detour was a nightmare", "All rights reserved", "Privacy policy", "dataLayer", "font-family"]
  },
  {
    name: "main-landmark",
    keep: ["Release notes for version 4.2", "streaming responses", "first one it meets", "legacy XML output"],
    drop: ["Sign in", "API reference", "Apache License", "Imprint"],
    check: (tree) => {
      const main = elements(tree, "main")
      expect(main).toHaveLength(1)
      expect(main[0]!.properties.id).toBe("content")
      expect(collapse(textOf(main[0]!))).toContain("legacy XML output")
    }
  },
  {
    name: "cookie-ads",
    keep: ["How to repot an orchid", "every two years", "trim any roots", "wait a week before watering"],
    drop: ["We use cookies", "Accept all", "Manage cookie settings", "cheapest fertiliser", "Orchid Deluxe",
      "Subscribe to our newsletter", "Leaf icon"],
    check: (tree) => expect(elements(tree, "svg")).toHaveLength(0)
  },
  {
    name: "forum-thread",
    keep: ["smells strongly of nail polish remover", "That acetone smell means it is hungry", "whole rye flour"],
    drop: ["Members", "Forum rules", "Contact us", "Next"]
  },
  {
    name: "tables-code",
    keep: ["without any extra tools", "while IFS=, read -r name size", "Handles quotes", "csvkit", "9.8 s",
      "real CSV parser"],
    drop: ["Share on Twitter", "Share on Facebook", "Tags"],
    check: (tree) => {
      expect(elements(tree, "table")).toHaveLength(1)
      expect(elements(tree, "th").map((th) => collapse(textOf(th)))).toEqual(["Tool", "Time", "Handles quotes"])
      expect(elements(tree, "td")).toHaveLength(9)
      expect(elements(tree, "pre")).toHaveLength(1)
      expect(elements(tree, "code")[0]!.properties.className).toEqual(["language-sh"])
      expect(elements(tree, "img")[0]!.properties.src).toBe("/img/benchmark.png")
      expect(elements(tree, "a").some((a) => a.properties.href === "https://csvkit.readthedocs.io/")).toBe(true)
    }
  },
  {
    name: "non-english",
    keep: ["drei neue Radwege durch die Altstadt", "nur einspurig befahrbar", "Poller und farbige Markierungen"],
    drop: ["Stadtanzeiger", "Das könnte Sie auch interessieren", "Stadtfest fällt aus", "Kommentare",
      "Endlich tut sich etwas", "Impressum", "Datenschutz"]
  },
  {
    // Issue 23, item 1: the rest of the article sits hidden after a "Continue reading" button.
    name: "read-more",
    keep: ["sleeper carriages will again leave the capital", "trained a new crew of attendants",
      "Tickets go on sale next month", "A slow start", "mostly by people who remember the old service"],
    drop: ["Continue reading", "Ten scenic rail routes", "Strike called off", "Imprint", "Rail Weekly"]
  },
  {
    // Item 2: "Leggi anche" / "See also" teasers mid-article go, the paragraphs after them stay.
    name: "read-also",
    keep: ["Il vecchio ponte sul fiume ha riaperto", "I pendolari, che per mesi", "Il comune ha detto",
      "La carreggiata è stata allargata", "Gli abitanti del quartiere hanno organizzato"],
    drop: ["Traffico in tilt", "Leggi anche", "Nuove piste ciclabili", "See also", "Ferry timetable changes"]
  },
  {
    // Item 3: a ticker before, teasers of other posts and a book advert after the article, in its own column.
    name: "related-inside",
    keep: ["A record apple harvest", "Growers across the valley", "cold stores were full",
      "A big crop is not the same as a good year"],
    drop: ["Breaking news", "Storm warning", "Pear blight", "Cider festival", "Beekeepers report", "Honey yields",
      "Our orchard cookbook", "Order now", "Facebook"]
  },
  {
    // Item 4: the byline and the figure captions are article text; the sidebar is not.
    name: "byline-captions",
    keep: ["Drei neue Radwege", "Von Maria Keller", "Der neue Radweg an der Marktstraße ist rot markiert",
      "Die Stadt hat am Montag drei neue Radwege eröffnet", "Die drei neuen Strecken im Überblick",
      "der Rest kommt aus dem städtischen Haushalt"],
    drop: ["Meistgelesen", "Stadtfest fällt aus", "Impressum", "Stadtblatt", "Archiv", "OpenStreetMap"],
    check: (tree) => expect(elements(tree, "img").map((img) => img.properties.src)).toEqual(["/img/radweg.jpg", "/img/karte.png"])
  },
  {
    // The publisher's notes to the reader inside the article's column: follow-us, a support appeal, a feedback prompt,
    // a copyright line.
    name: "reader-notices",
    keep: ["Harbour dredging starts next month", "removing about forty thousand cubic metres", "Fishing boats will be moved",
      "a modest sum to the cost of the work"],
    drop: ["Follow the Coastal Post", "We need your support", "Help us keep local journalism free",
      "We want to hear what you think", "copyrighted property", "Written permission must be obtained"]
  },
  {
    // Several linked headlines of other posts after the article's last paragraph, in its own column, go.
    name: "headlines-after",
    keep: ["Karhut heräsivät aikaisin", "Eläintarhan karhut heräsivät", "ulkoaitaus avataan yleisölle vasta maaliskuussa"],
    drop: ["Eläintarhan tiedote karhujen", "Kittilässä ennätyslumet", "Vuosi 2018 toi kylmää", "Harmaa on hyvä"]
  },
  {
    // One linked line after the article is its source, and stays.
    name: "source-after",
    keep: ["Library extends opening hours", "stay open until ten", "what they cost", "Minutes of the library board"],
    drop: ["Contact"]
  },
  {
    // A "Mehr Themen:" label whose list of links went is left last: it goes too.
    name: "dangling-label",
    keep: ["Neue Buslinie ins Gewerbegebiet", "alle zwanzig Minuten", "den Unternehmen vor Ort"],
    drop: ["Mehr Themen", "Radweg an der Ringstraße", "Wochenmarkt", "Freibad"]
  },
  {
    // Prompts to act outside the article (newsletter, app, e-paper, log in), the affiliate-link disclosure and an
    // embed's consent placeholder go; the article's paragraphs between them stay.
    name: "reader-prompts",
    keep: ["Fähre fährt wieder nach Fahrplan", "seit Montag wieder im Einsatz", "zwei zusätzliche Abfahrten",
      "Die Preise bleiben bis zum Herbst gleich"],
    drop: ["Provision vom Händler", "Abonnieren Sie unseren Newsletter", "Wir respektieren deine Privatsphäre",
      "als E-Paper", "Get the latest news", "Sie müssen sich einloggen"]
  },
  {
    // Author boxes (a bio under a byline-like name, the Simple Author Box plugin) go, also when the laxer chrome rules
    // found the article (its sections are named like ads).
    name: "author-box",
    keep: ["Kontaktgrill im Test", "Nach sieben Minuten sind beide Platten", "Weniger gelungen ist die Fettschale",
      "Für gelegentliches Grillen reicht das Gerät"],
    drop: ["Jana Weber ist Redakteurin", "backt sie Brot", "Max Mustermann fotografiert", "Impressum"]
  },
  {
    // Comment sections named in the page's language (`kommentare`, `commentaires`) go like `comments`.
    name: "comments-named",
    keep: ["Hechte im Winter", "führt den Köder langsam", "Wichtig ist ein Stahlvorfach", "erholt sich nach"],
    drop: ["Kommentare (2)", "Bei uns am See", "die Fische brauchen ihre Ruhe", "Très bon article"]
  },
  {
    // A block holding only a date or a time (the post's dateline) goes; a date inside a sentence and a version
    // number heading stay.
    name: "dateline",
    keep: ["Neue Öffnungszeiten im Bürgeramt", "auch am Samstagvormittag", "Am 31.12.2023 entscheidet der Rat",
      "Version 2.10", "für alle Standorte"],
    drop: ["Donnerstag, 2. März 2023", "14:35 Uhr", "Aktualisiert: 03.03.2023", "Impressum"]
  },
  {
    // A label whose section went ("Die Karte zum Abspeichern:" over an embedded map, a question heading over a form)
    // is dropped also when the emptied embed is left after it.
    name: "dangling-after-embed",
    keep: ["Rund um den Kratersee", "gegen den Uhrzeigersinn", "eine Einkehr gibt es sonst unterwegs nicht"],
    drop: ["Lust auf eine geführte Tour", "Die Karte zum Abspeichern", "Impressum"]
  },
  {
    // Related labels naming the site, the place or the topic after them ("Más noticias de Honduras", "Mehr zum
    // Thema auf Reiseblatt.de", "Weitere Reisetipps in Südtirol") go with the links they announce, in any case.
    name: "related-named-es",
    keep: ["Reabren el mercado central", "Más de doscientos puestos", "Los comerciantes", "de seis de la mañana"],
    drop: ["LE PUEDE INTERESAR", "nuevo tren de cercanías", "Más noticias de Honduras", "Suben los precios",
      "Lluvias intensas"]
  },
  {
    name: "related-named-de",
    keep: ["Mit dem Wohnmobil durch Südtirol", "frischen Eiern zum Frühstück", "Törggelen in den Buschenschänken"],
    drop: ["Weitere Reisetipps", "Meran im Frühling", "Mehr zum Thema", "Camping in den Alpen", "Die schönsten Stellplätze"]
  },
  {
    // The choices of a paywall box and the publisher's disclaimer of contributed content go.
    name: "paywall-disclaimer",
    keep: ["Gute Löhne allein reichen nicht", "wie Arbeitgeber in Zeiten knapper Bewerbungen", "ein paar Franken mehr Lohn"],
    drop: ["Ja. Ich bin Abonnent", "Ja. Ich benötige ein Abo", "keine Verantwortung für den Inhalt", "Impressum"]
  },
  {
    // A span inside a link or a sentence is that text's markup and stays; a span standing as a block of links goes.
    name: "span-links",
    keep: ["an Mieter oder einen Winterdienst übertragen", "Fitnesstraining an der frischen Luft"],
    drop: ["Drucken", "Merken", "Weitersagen", "Impressum"]
  },
  {
    // A table with header cells is data even when its items are links; a table of links without one is navigation.
    name: "data-table",
    keep: ["Penny is a villager", "A rare gem", "Sweet treat", "Made from honey"],
    drop: ["Demetrius", "Caroline", "About the wiki"],
    check: (tree) => expect(elements(tree, "table")).toHaveLength(1)
  },
  {
    // A layout class naming the sidebar it places beside the content (`c-fixed-sidebar-layout`) is no sidebar.
    name: "sidebar-layout",
    keep: ["Android ransomware spreads", "These messages include links to the ransomware", "novel techniques to exfiltrate"],
    drop: ["Podcasts", "Share", "About us", "Send us a tip"]
  },
  {
    // A span inside a paragraph is the sentence's text whatever its class (a news dateline "KOBE –"); a block named
    // like that is still chrome.
    name: "span-in-paragraph",
    keep: ["KOBE – A total of 6,000 surgical masks", "Four of the twelve boxes were gone"],
    drop: ["Posted Feb 18, 2020", "About us"]
  },
  {
    // The article's lead paragraph above its body, in the article's header (a subtitle, standfirst or intro named
    // so), is kept; a block named like that far from the article is not.
    name: "lead-above",
    keep: ["Die Digitalisierung der Arbeitswelt werde Millionen", "Seit Jahren warnen Forscher",
      "auf eine breitere Grundlage zu stellen"],
    drop: ["Willkommen beim Wochenblatt", "Impressum"]
  },
  {
    // A header holding the page's headline as text is the article's header (its subtitle is the lead); the site's
    // header, whose h1 is the logo link, is chrome.
    name: "article-header",
    keep: ["Ein Skateboard-Contest auf einer schwimmenden Miniramp", "Zum dritten Mal wird die Miniramp",
      "einen Sonderpreis"],
    drop: ["Skatemag", "Videos", "Impressum"]
  },
  {
    // A table with header cells is data also when its name reads like chrome (`table-header`): a recipe's
    // ingredients; the site header named so still goes.
    name: "data-table-named",
    keep: ["Für den Mürbeteig:", "Margarine oder Butter", "einen Mürbeteig kneten", "vollständig auskühlen lassen"],
    drop: ["Backbuch", "Magazin", "Impressum"],
    check: (tree) => expect(elements(tree, "table")).toHaveLength(1)
  },
  {
    // The lead is found also when the header and the body sit several wrappers apart.
    name: "lead-far",
    keep: ["hat sich bei der Ausschreibung durchgesetzt", "Der Vertrag läuft zunächst", "am Flughafen der Stadt"],
    drop: ["Militär", "Impressum"]
  },
  {
    // A picture credit in parentheses ("(Credit: …)", "(Foto: dpa)") goes like one without; the sentence beside it
    // stays.
    name: "credit-parentheses",
    keep: ["Coal generation fell by eighteen percent", "Surging natural gas", "ein Zehntel des Stroms"],
    drop: ["Clayton Aldern", "(Foto: dpa)", "About"]
  },
  {
    name: "almost-empty",
    keep: ["Coming soon"],
    drop: [],
    fallback: true
  }
]

describe("MainContent.extract", () => {
  it("exports exactly extract", () => {
    expect(Object.keys(MainContent).sort()).toEqual(["extract"])
  })

  for (const c of cases) {
    it(`${c.name}: keeps the content and drops the chrome`, () => {
      const tree = Html.parse(readFileSync(join(fixtures, c.name, "input.html"), "utf8"))
      const before = JSON.stringify(tree)
      const result = MainContent.extract(tree, { url: `https://example.test/${c.name}` })
      const text = collapse(textOf(result.tree))
      for (const segment of c.keep) expect(text, `keeps "${segment}"`).toContain(segment)
      for (const segment of c.drop) expect(text, `drops "${segment}"`).not.toContain(segment)
      expect(result.fallback).toBe(c.fallback ?? false)
      if (result.fallback) expect(result.reason).toMatch(/\w+/u)
      else expect(result.reason).toBeUndefined()
      c.check?.(result.tree)
      expect(JSON.stringify(tree), "the input tree is not mutated").toBe(before)
    })
  }

  // Pages shaped like the corpus's awkward cases: everything in chrome-named blocks, layout tables, bare text,
  // a wrapper whose class names a sidebar, a page swallowed by an unclosed element inside <noscript>.
  const awkward: Record<string, string> = {
    "only chrome": `<nav><a href="/a">Alpha section</a> <a href="/b">Beta section</a></nav><footer>Contact: 555-0100</footer>`,
    "layout table": `<table><tr><td><a href="/">Home</a></td><td>Our shop sells hand-made wooden toys for children of all
      ages, crafted in a small workshop by the lake, and ships them anywhere in the country.</td></tr></table>`,
    "bare text": `Just one line of text in the body.`,
    "sidebar wrapper": `<div class="page has-sidebar sidebar-left"><div class="sidebar-content"><p>This whole page is a
      long essay about the history of the bicycle, from the draisine of 1817 to the carbon frames of today.</p><p>It
      covers the safety bicycle, the pneumatic tyre, and the derailleur, with many dates and names.</p></div></div>`,
    "noscript swallow": `<noscript><div id="nojs"></noscript><div class="text"><p>${"A sentence of real text, with commas, ".repeat(20)}</p></div>`,
    "comments only": `<div id="comments" class="comments"><p>First comment, which is the only text on this page, and it is long enough to matter.</p></div>`
  }
  for (const [name, body] of Object.entries(awkward)) {
    it(`never returns an empty tree when the body has text: ${name}`, () => {
      const tree = Html.parse(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`)
      const bodyText = collapse(textOf(tree)).replace(/^t /u, "")
      const result = MainContent.extract(tree)
      const text = collapse(textOf(result.tree))
      expect(bodyText.length).toBeGreaterThan(0)
      expect(text.length).toBeGreaterThan(0)
      if (result.fallback) expect(result.reason).toMatch(/\w+/u)
    })
  }

  // The markers of items 1 and 2 in several languages, on pages of the same shapes.
  const prose = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      `<p>Paragraph ${i + 1} of the story, which goes on with commas, names, places and numbers such as ${i * 7}, ` +
        `as real article text does when it is long enough to count.</p>`).join("")
  const markers: ReadonlyArray<[string, string, string]> = [
    ["en", "Read more", "Read also:"],
    ["de", "Weiterlesen", "Lesen Sie auch:"],
    ["fr", "Lire la suite", "À lire aussi :"],
    ["es", "Seguir leyendo", "Lea también:"],
    ["it", "Continua a leggere", "Leggi anche:"],
    ["pl", "Czytaj dalej", "Czytaj też:"],
    ["nl", "Lees verder", "Lees ook:"]
  ]
  for (const [lang, more, also] of markers) {
    it(`${lang}: the hidden rest after "${more}" is joined`, () => {
      const html = `<html lang="${lang}"><body><nav><a href="/">Home</a> <a href="/x">Section</a></nav>
        <div class="story"><h1>Headline</h1><div class="body-intro">${prose(2)}</div>
        <div class="more-control"><a href="#rest" class="more">${more}</a></div>
        <div class="body-rest" style="display: none"><p>The hidden rest begins here, with the part of the story the
        button reveals, and it goes on for a while.</p>${prose(3)}<p>The last words of the whole story.</p></div></div>
        <footer>Footer text</footer></body></html>`
      const text = collapse(textOf(MainContent.extract(Html.parse(html)).tree))
      expect(text).toContain("Paragraph 1 of the story")
      expect(text).toContain("The hidden rest begins here")
      expect(text).toContain("The last words of the whole story.")
      expect(text).not.toContain(more)
      expect(text).not.toContain("Footer text")
    })

    it(`${lang}: a "${also}" teaser mid-article goes alone`, () => {
      const label = also.replace(/\s*:$/u, "")
      const html = `<html lang="${lang}"><body><article><h1>Headline</h1>${prose(2)}
        <p><strong>${also}</strong> <a href="/other">Another story entirely about something else</a></p>
        <p>The paragraph right after the teaser is part of the article, with commas, and stays where it is.</p>
        ${prose(2)}<h3>${label}</h3><p><a href="/other-2">A second teaser headline of a different story</a></p>
        <p>The paragraph after the labelled teaser is the article going on, with commas, and stays too.</p>
        ${prose(1)}</article></body></html>`
      const text = collapse(textOf(MainContent.extract(Html.parse(html)).tree))
      expect(text).toContain("The paragraph right after the teaser is part of the article")
      expect(text).toContain("The paragraph after the labelled teaser is the article going on")
      expect(text).toContain("Paragraph 1 of the story")
      expect(text).not.toContain("Another story entirely")
      expect(text).not.toContain("A second teaser headline")
    })
  }

  it("flags a page without text as a fallback", () => {
    const result = MainContent.extract(Html.parse(`<html><body><img src="/a.png"></body></html>`))
    expect(result.fallback).toBe(true)
    expect(result.reason).toBe("The page has no text")
  })

  it("the noscript-swallowed page yields the article text", () => {
    const html = `<body><noscript><div></noscript><div class="text"><p>${"Real article text, with commas, ".repeat(20)}</p></div></body>`
    const result = MainContent.extract(Html.parse(html))
    expect(collapse(textOf(result.tree))).toContain("Real article text, with commas")
    expect(result.fallback).toBe(false)
  })
})
