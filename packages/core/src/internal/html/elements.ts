/** Element categories of the HTML tree-construction algorithm (WHATWG HTML §13.2), as the tree builder uses them. */

const set = (names: string): ReadonlySet<string> => new Set(names.split(" "))

/** Elements with no content and no end tag. */
export const voidElements = set(
  "area base basefont bgsound br col embed frame hr image img input keygen link meta param source track wbr"
)

/** Start tags that close an open `p` (in button scope) before they open. */
export const closesParagraph = set(
  "address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form h1 h2 h3 " +
    "h4 h5 h6 header hgroup hr main menu nav ol p pre listing search section summary table ul xmp plaintext li dd dt"
)

/** Headings. */
export const headings = set("h1 h2 h3 h4 h5 h6")

/** Elements allowed in the head before the body starts. */
export const headContent = set("base basefont bgsound link meta noframes script style template title")

/** The "special" category: a generic end tag does not close past one of them. */
export const special = set(
  "address applet area article aside base basefont bgsound blockquote body br button caption center col colgroup dd " +
    "details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header " +
    "hgroup hr html iframe img input keygen li link listing main marquee menu meta nav noembed noframes noscript " +
    "object ol p param plaintext pre script search section select source style summary table tbody td template " +
    "textarea tfoot th thead title tr track ul wbr xmp"
)

/** Formatting elements: their end tag closes them even across block elements opened inside (adoption, simplified). */
export const formatting = set("a b big code em font i nobr s small strike strong tt u")

/** Scope boundaries ("has an element in scope"). */
export const scopeBoundary = set("applet caption html table td th marquee object template")

/** Table structure elements: while one of them is the current node, other content is foster-parented. */
export const tableContext = set("table tbody thead tfoot tr")

/** Table sections. */
export const tableSections = set("tbody thead tfoot")

/** Elements kept in place inside table structure (not foster-parented). */
export const tableInPlace = set("script style template caption colgroup col")
