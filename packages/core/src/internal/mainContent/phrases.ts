/**
 * Short texts that are page furniture in any of the corpus's languages: section labels for related content, sharing,
 * comments, tags, ads and picture credits. Matched against the whole (short) text of a block, never inside prose.
 */

/** Labels opening a related-content or further-reading section: the label and what follows it in its block go. */
export const relatedLabel = new RegExp(
  "^(?:" +
    [
      "related(?: posts| articles| stories| content| news| topics)?", "you (?:may|might) also (?:like|enjoy)",
      "(?:read|see) (?:also|more|next)", "also read", "more (?:from|on|about|stories|news|articles)", "recommended",
      "popular (?:posts|articles)", "most (?:read|popular)", "further reading",
      "ähnliche (?:beiträge|artikel|themen|rezepte)", "(?:das )?(?:könnte|dürfte) (?:sie|dich) auch interessieren",
      "auch interessant", "lesen sie (?:auch|mehr|hier)", "mehr (?:zum thema|dazu|aus|zu)", "weitere (?:artikel|beiträge|themen|nachrichten|meldungen)",
      "das (?:thema )?könnte (?:sie|dich) auch interessieren", "empfehlungen", "verwandte (?:artikel|beiträge)",
      "(?:à )?lire aussi", "sur le même (?:sujet|thème)", "voir aussi", "articles? (?:similaires|liés)",
      "(?:noticias|artículos) relacionad[oa]s", "te puede interesar", "lea también", "también te puede interesar",
      "leggi anche", "articoli correlati", "potrebbe interessarti", "czytaj (?:też|także|również)",
      "zobacz (?:też|także|również)", "polecamy", "podobne artykuły", "läs (?:också|mer)", "lees ook", "gerelateerd"
    ].join("|") +
    ")\\s*[:.!?…]*$",
  "iu"
)

/** Whole short texts that are furniture wherever they appear. */
export const furniture = new RegExp(
  "^(?:" +
    [
      "share(?: this(?: article| post| story| page)?)?(?: on \\w+)?", "tweet", "print(?: this)?", "e-?mail",
      "tags?", "categor(?:y|ies)", "filed under.*", "posted (?:in|on|by) .{0,60}", "this (?:entry|post) was posted .*",
      "leave a (?:reply|comment)", "\\d* ?comments?", "no comments(?: yet)?", "advertisement", "sponsored",
      "(?:photo|image|picture|credit|source)s?:.{0,80}", "(?:getty images|shutterstock|istock|dpa|afp|reuters)(?:/.{0,40})?",
      "anzeige", "-? ?anzeige ?-?", "werbung", "teilen", "jetzt teilen", "artikel teilen", "kommentare?", "\\d* ?kommentare?",
      "kommentar (?:verfassen|schreiben)", "schlagwörter", "schlagworte", "kategorien", "themen", "drucken",
      "rezept drucken", "(?:foto|bild|quelle|fotos|bilder|titelbild|beitragsbild)s?:.{0,80}", "zurück", "nach oben",
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
      "zapraszamy", "materiał chroniony", "publié le", "mis à jour le", "publicado el", "actualizado el"
    ].join("|") +
    ")",
  "iu"
)
