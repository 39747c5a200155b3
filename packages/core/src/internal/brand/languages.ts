/** The language names of the SDK's `primary_language` enum (context.dev 2.19.0), verbatim. */
export const LANGUAGES: ReadonlySet<string> = new Set([
  "afrikaans", "albanian", "amharic", "arabic", "armenian", "assamese", "aymara", "azeri", "basque", "belarusian",
  "bengali", "bosnian", "bulgarian", "burmese", "cantonese", "catalan", "cebuano", "chinese", "corsican", "croatian",
  "czech", "danish", "dutch", "english", "esperanto", "estonian", "farsi", "fijian", "finnish", "french", "galician",
  "georgian", "german", "greek", "guarani", "gujarati", "haitian-creole", "hausa", "hawaiian", "hebrew", "hindi",
  "hmong", "hungarian", "icelandic", "igbo", "indonesian", "irish", "italian", "japanese", "javanese", "kannada",
  "kazakh", "khmer", "kinyarwanda", "korean", "kurdish", "kyrgyz", "lao", "latin", "latvian", "lingala",
  "lithuanian", "luxembourgish", "macedonian", "malagasy", "malay", "malayalam", "maltese", "maori", "marathi",
  "mongolian", "nepali", "norwegian", "odia", "oromo", "pashto", "pidgin", "polish", "portuguese", "punjabi",
  "quechua", "romanian", "russian", "samoan", "scottish-gaelic", "serbian", "sesotho", "shona", "sindhi", "sinhala",
  "slovak", "slovene", "somali", "spanish", "sundanese", "swahili", "swedish", "tagalog", "tajik", "tamil", "tatar",
  "telugu", "thai", "tibetan", "tigrinya", "tongan", "tswana", "turkish", "turkmen", "ukrainian", "urdu", "uyghur",
  "uzbek", "vietnamese", "welsh", "wolof", "xhosa", "yiddish", "yoruba", "zulu"
])

// Where English display names differ from the SDK's words.
const ALIASES: Readonly<Record<string, string>> = {
  persian: "farsi", azerbaijani: "azeri", slovenian: "slovene", "norwegian bokmål": "norwegian", "norwegian nynorsk": "norwegian",
  filipino: "tagalog", "scottish gaelic": "scottish-gaelic", "haitian creole": "haitian-creole", "southern sotho": "sesotho",
  odia: "odia", oriya: "odia", "nigerian pidgin": "pidgin", "western frisian": "dutch", kirghiz: "kyrgyz", "central khmer": "khmer"
}

const displayNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" })

/** The SDK's language name for a BCP 47 tag (`en-US` → `english`, `zh-HK` → `cantonese`... `zh` → `chinese`), if any. */
export const languageOf = (tag: string | undefined): string | undefined => {
  if (tag === undefined) return undefined
  const clean = tag.trim().replace(/_/g, "-")
  if (clean === "") return undefined
  const primary = clean.split("-")[0]!.toLowerCase()
  if (primary === "yue") return "cantonese"
  let name: string | undefined
  try {
    name = displayNames.of(primary)?.toLowerCase()
  } catch {
    return undefined
  }
  if (name === undefined) return undefined
  const word = ALIASES[name] ?? name
  return LANGUAGES.has(word) ? word : undefined
}
