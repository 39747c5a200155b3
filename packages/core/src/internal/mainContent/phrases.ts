/**
 * Short texts that are page furniture in any of the corpus's languages: section labels for related content, sharing,
 * comments, tags, ads and picture credits. Matched against the whole (short) text of a block, never inside prose.
 */

/** Related-content labels, as alternatives of one pattern. */
const relatedLabels = [
  "related(?: posts| articles| stories| content| news| topics)?", "you (?:may|might) also (?:like|enjoy)",
  "(?:read|see) (?:also|more|next)", "also read", "more (?:from|on|about|stories|news|articles)", "recommended",
  "popular (?:posts|articles)", "most (?:read|popular)", "further reading",
  "ähnliche (?:beiträge|artikel|themen|rezepte)", "(?:das )?(?:könnte|dürfte) (?:sie|dich) auch interessieren",
  "auch interessant", "lesen sie (?:auch|mehr|hier)", "mehr (?:zum thema|dazu|aus|zu)", "siehe auch",
  // German compounds: Weitere Reisetipps, Weitere Lesetipps, Weitere Kurznachrichten
  "weitere \\p{L}*(?:artikel|beiträge|themen|nachrichten|meldungen|tipps|news)",
  "das (?:thema )?könnte (?:sie|dich) auch interessieren", "empfehlungen", "verwandte (?:artikel|beiträge)",
  "(?:à )?lire aussi", "sur le même (?:sujet|thème)", "voir aussi", "articles? (?:similaires|liés)",
  "(?:noticias|artículos) relacionad[oa]s", "(?:también )?(?:te|le) (?:puede|podría) interesar", "lea también",
  "más noticias", "le recomendamos",
  "leggi anche", "articoli correlati", "potrebbe interessarti", "czytaj (?:też|także|również)",
  "zobacz (?:też|także|również)", "polecamy", "podobne artykuły", "läs (?:också|mer)", "lees ook", "gerelateerd",
  "(?:auch|jetzt) lesen", "schon gelesen", "neueste (?:artikel|beiträge|nachrichten)", "top themen(?: der redaktion)?",
  "latest (?:news|articles|posts|stories)", "lea (?:más|también)", "puedes ver", "mira también", "te recomendamos",
  "ver también", "(?:leia|veja) também", "leggi (?:pure|anche)", "à lire (?:aussi|également)"
]

/** Short teaser leads that only mean "read" or "see" (`Lea: <a>…</a>`, `MIRA: <a>…</a>`), used with a link only. */
const teaserLeads = ["lea", "mira", "lee", "leia", "veja", "lesen sie", "read", "see", "watch", "voir", "lire"]

/**
 * Labels opening a related-content or further-reading section: the label and the links it announces go. The label may
 * name the site, the place or the topic after a preposition ("Mehr zum Thema auf UEPO.de", "Más noticias de Colombia").
 */
export const relatedLabel = new RegExp(
  "^(?:" + relatedLabels.join("|") + ")" +
    "(?: (?:auf|bei|aus|im|in|zum|on|at|from|de|en|sur|su|di|del|w|z) [^ ]+(?: [^ ]+){0,3})?\\s*[:.!?…]*$",
  "iu"
)

/** A label leading a block's text (`Leggi anche: <a>…</a>`): the block is a teaser when the rest is its link. */
export const relatedLead = new RegExp("^(?:" + [...relatedLabels, ...teaserLeads].join("|") + ")\\s*[:»>|]+\\s*", "iu")

/**
 * Controls that reveal the rest of an article ("Read more" buttons): the container after one is the same article.
 * Matched against a whole short text.
 */
export const continuation = new RegExp(
  "^(?:" +
    [
      "(?:continue|keep) reading", "read (?:more|the (?:full|whole|rest of the) (?:article|story|post))", "show more",
      "read full (?:article|story)", "(?:artikel )?weiterlesen", "mehr (?:lesen|anzeigen)", "ganzen artikel lesen",
      "lire la suite", "afficher (?:la suite|plus)", "voir plus", "(?:seguir|continuar) leyendo", "leer más", "ver más",
      "continua(?:re)? a leggere", "leggi (?:tutto|di più|l'articolo)", "czytaj (?:dalej|więcej)", "lees (?:verder|meer)",
      "läs (?:mer|vidare)", "continuar a ler", "ler mais", "devamını oku", "читать (?:далее|дальше)"
    ].join("|") +
    ")\\s*[:.!?…»>+↓▼]*$",
  "iu"
)

/** Whole short texts that are furniture wherever they appear. */
export const furniture = new RegExp(
  "^(?:" +
    [
      "share(?: this(?: article| post| story| page)?)?(?: on \\w+)?", "tweet", "print(?: this)?", "e-?mail",
      "tags?", "categor(?:y|ies)", "filed under.*", "posted (?:in|on|by) .{0,60}", "this (?:entry|post) was posted .*",
      "leave a (?:reply|comment)", "\\d* ?comments?", "no comments(?: yet)?", "advertisement", "sponsored",
      // Picture credits, also in parentheses: "(Foto: Getty)", "(Photo: Reuters)".
      "\\(?(?:photo|image|picture|credit|source)s?:.{0,80}", "(?:getty images|shutterstock|istock|dpa|afp|reuters)(?:/.{0,40})?",
      "anzeige", "-? ?anzeige ?-?", "werbung", "teilen", "jetzt teilen", "artikel teilen", "kommentare?", "\\d* ?kommentare?",
      "kommentar (?:verfassen|schreiben)", "schlagwörter", "schlagworte", "kategorien", "themen", "drucken",
      "rezept drucken", "\\(?(?:foto|bild|quelle|fotos|bilder|titelbild|beitragsbild)s?:.{0,80}", "zurück", "nach oben",
      "partager", "commentaires?", "publicité", "crédits? photos?.{0,80}", "compartir", "comentarios?", "publicidad",
      "condividi", "commenti", "pubblicità", "udostępnij", "komentarze", "reklama", "zdjęcie:.{0,80}", "kommentieren",
      "drukuj", "quellenangaben", "aufrufe", "weitere informationen", "last modified.{0,40}", "czytaj (?:też|także)"
    ].join("|") +
    ")\\s*[:.!?…]*$",
  "iu"
)

/** Openings of short blocks that are furniture: invitations, ratings, publication notes, subscription prompts. */
export const furnitureOpening = new RegExp(
  "^(?:" +
    [
      "if you (?:enjoyed|liked|like)", "never miss", "stay up[- ]to[- ]date", "subscribe to", "sign up (?:for|to)",
      "was this (?:article|post) helpful", "war (?:der|dieser) (?:artikel|beitrag) (?:nützlich|hilfreich)",
      "(?:möchten|wollen) sie (?:den|diesen) (?:artikel|beitrag)", "hier können sie (?:den|diesen) (?:artikel|beitrag)",
      "(?:dieser|der) (?:beitrag|eintrag|text|artikel) wurde (?:am |von )?", "erstellt am", "zuletzt (?:aktualisiert|geändert)",
      "aktualisiert am", "veröffentlicht am", "published on", "updated on", "last updated", "mehr aus (?:der|dem|den)",
      "zapraszamy", "materiał chroniony", "publié le", "mis à jour le", "publicado el", "actualizado el",
      "to view the full (?:story|article)", "subscribe now", "if you(?:'|’)re seeing this message",
      "for the latest (?:stories|news|updates)", "¿ya sabías que", "únete a nuestro canal",
      "(?:über den|about the|o) autor(?:ze)?\\b", "à propos de l'auteur", "sobre el autor"
    ].join("|") +
    ")",
  "iu"
)

/**
 * Openings of the publisher's notes to the reader inside an article's column (up to a short paragraph): appeals to
 * support, join or follow the publication, feedback prompts, copyright or opinion disclaimers, prompts to act outside
 * the article (newsletter, app, e-paper, log in, write in), affiliate-link disclosures, consent placeholders and the
 * choices of a paywall box.
 */
export const readerNotice = new RegExp(
  "^\\(?(?:" +
    [
      "unterstütze (?:uns|unser|[\\p{Lu}][\\p{L}]+ (?:bereits|schon|mit))", "unterstützen sie (?:uns|unser)",
      "gefällt (?:dir|ihnen) unser", "werden sie mitglied", "folge uns auf",
      "folgen sie uns auf", "(?:kennt ihr|kennen sie) (?:schon )?unser", "besuchen sie (?:auch )?unser",
      "bei fragen und anregungen zu diesem", "alle angaben ohne gewähr",
      "(?:dieser|namentlich gekennzeichnete) beitr(?:a|ä)ge? geben? (?:immer )?die meinung",
      "bei diesem (?:beitrag|artikel|text) handelt es sich um", "anzeige\\s*[-–:]",
      "we need your (?:help|support)", "help us (?:continue|keep)", "support (?:us|our (?:work|journalism))",
      "follow (?:us|the [\\p{L} ]{1,30}) on (?:twitter|facebook|instagram)", "we want to hear (?:what you think|from you)",
      "get the [\\p{L}’' ]{1,40} by email",
      "hazte (?:miembro|socio)", "apóyanos", "si te parece valioso", "¡?(?:mira|visita) (?:lo que tiene )?nuestro canal",
      "síguenos en", "wszelkie prawa zastrzeżone",
      "(?:©|copyright|\\(c\\)) ?(?:\\d{4}|by)\\b", "(?:abonniere|abonnieren sie|bestellen sie) (?:jetzt )?unser(?:en)? newsletter",
      "(?:melde dich|melden sie sich) (?:jetzt )?(?:für|zu)m? (?:unseren? )?newsletter", "sign up for (?:our|the) [^.]{0,30}newsletter",
      "jetzt spenden", "donate (?:now|today)", "(?:please )?consider (?:supporting|subscribing|donating)",
      "abonnez-vous", "inscrivez-vous à (?:notre|la) newsletter", "soutenez-nous", "suscríbete", "dona (?:ahora|aquí)",
      "iscriviti alla (?:nostra )?newsletter", "sostienici", "zapisz się na newsletter", "wesprzyj (?:nas|nasz)",
      "like us on facebook", "folgt uns auf", "suivez-nous sur", "seguici su", "obserwuj nas",
      // Prompts to act outside the article: get the news or the app, log in, write in; the affiliate-link disclosure
      // and the placeholder of an embed waiting for consent.
      "get the latest (?:news|stories|updates|headlines)", "(?:do you )?want to (?:be|stay) (?:informed|up to date)",
      "download (?:our|the) [\\p{L}\\p{N} ]{1,30} app", "submit (?:your|a) letter", "write to us at",
      "you (?:must|need to) (?:be )?(?:logged in|log in|sign in|registered)", "we respect your privacy",
      "this (?:post|article|page) (?:contains|may contain) (?:references to products|affiliate links|links)",
      "we (?:may )?(?:receive|earn) (?:a )?(?:compensation|commission)", "as an amazon associate",
      "immer (?:bestens |gut )?(?:informiert|auf dem laufenden)", "abonnieren sie (?:jetzt )?unsere?",
      "lesen sie (?:das|die|den) [\\p{L}\\p{N} -]{1,30}(?:magazin|zeitung|heft|e-paper)\\b",
      "(?:laden sie|lade dir) (?:jetzt )?(?:unsere|die) [\\p{L}\\p{N} -]{0,30}app",
      "(?:sie müssen|du musst) (?:sich |dich )?(?:einloggen|anmelden|eingeloggt|angemeldet)",
      "wir respektieren (?:deine|ihre) privatsphäre", "(?:für|bei) links auf dieser seite",
      "(?:dieser|der) (?:artikel|beitrag) (?:kann|enthält) (?:affiliate-|partner-)?links",
      "recevez (?:notre|nos|l'essentiel|toute l'actualité)", "téléchargez (?:notre|l'|l’)application",
      "vous devez être (?:connecté|inscrit)", "nous respectons votre vie privée", "écrivez-nous",
      "puedes? escribirnos", "escríbenos a", "recibe (?:las|nuestras|todas las) (?:últimas )?noticias",
      "descarga (?:nuestra|la) app", "debes (?:iniciar sesión|estar registrado)", "respetamos tu privacidad",
      "scarica (?:la nostra |l'|l’)app", "devi essere (?:registrato|loggato|connesso)", "scrivici a",
      "pobierz (?:naszą )?aplikację", "musisz być zalogowany", "napisz do nas",
      // The choices of a paywall box.
      "(?:ja\\. )?ich (?:bin|habe) (?:bereits |schon )?(?:abonnent|ein abo)", "(?:ja\\. )?ich (?:benötige|brauche|möchte) ein abo",
      "(?:sie sind|du bist) (?:bereits |schon )?abonnent", "haben sie (?:noch )?kein(?:en)? (?:konto|abo|zugang)",
      "already (?:a subscriber|have an account|subscribed)", "déjà abonné", "ya (?:eres|es) suscriptor",
      "sei già abbonato", "masz już (?:konto|subskrypcję)"
    ].join("|") +
    ")",
  "iu"
)
