/**
 * What the company sells, read the way an analyst reads a site: not the words it repeats but the activity a customer
 * pays for. Cues of the business model (a shop with a cart, makers who describe their making, a software product with
 * plans, an agency for hire, a group of companies) decide between the codes that share a subject: a furniture maker
 * and a furniture store, restaurant software and a restaurant, a holding company and its subsidiaries' trade. Priced
 * items name what is bought, so product families found in them (and in the site's own headings) count most.
 */
import type { CompanyEvidence } from "../../CompanyEvidence.js"

/** How strongly the site shows each business model (counts of distinct cues). */
export interface Model {
  /** Sells goods to visitors: a cart, "shop now", shipping, priced goods. */
  readonly commerce: number
  /** Describes making what it sells: "hand-poured", "our workshop", "we roast". */
  readonly making: number
  /** A software product: platform, app, plans per month, free trial, log in. */
  readonly software: number
  /** Builds software or apps for clients: agency, hire our engineers, case studies. */
  readonly agency: number
  /** Hosts sites or data: hosting, servers, data centers. */
  readonly hosting: number
  /** Owns other companies: subsidiaries, parent company, our companies, majority stakes. */
  readonly holding: number
  /** Sells to businesses in bulk: wholesale, distributor, contractor accounts. */
  readonly wholesale: number
  /** Sells used goods: pre-owned, vintage, consignment. */
  readonly used: number
  /** Names a bank as its own (bancorp, bank holding, bank subsidiary). */
  readonly bank: number
  /** Priced items that are goods or dishes (not plans per month). */
  readonly pricedItems: number
  /** Grows or raises what it sells: our fields, our herd, we grow. */
  readonly grows: number
  /** Resells what others make: buys from makers or at a market, restocks. */
  readonly resell: number
  /** Items priced by the hour or the day: goods rented out, not sold. */
  readonly rented: number
  /** Serves food and drink to be eaten there: a menu, a table to reserve, dine-in. */
  readonly dining: number
  /** Manages a chain or region for its group: head office, support centre, regional headquarters, with managing verbs. */
  readonly managing: number
  /** Arranges transport that others carry: a broker with a carrier network that owns no trucks. */
  readonly arranging: number
  /** Vehicles come with their drivers: a charter or a chauffeur, not a rental. */
  readonly withDriver: number
  /** Teaches its own students: tuition, cohorts, graduates, classes, weeks of course (a school, whatever its site's look). */
  readonly teaching: number
  /** Of the teaching cues, those only a school has: tuition, cohorts, graduates, admissions. */
  readonly school: number
  /** Sells a connection over its own network: speeds in Mbps or gigs, data caps, fiber to the home, its own lines. */
  readonly connection: number
  /** Fixes what others made: repair, we fix, diagnostics, breakdowns and road service, overhauls. */
  readonly repairs: number
  /** People do the work the plans buy: a real person, your named bookkeeper, live receptionists, not a bot. */
  readonly staffed: number
}

/** How many distinct cues of the list the text shows. */
const count = (text: string, cues: ReadonlyArray<RegExp>): number => cues.reduce((n, cue) => n + (cue.test(text) ? 1 : 0), 0)

const commerceCues = [
  /\badd to (?:cart|bag|basket)\b/, /\bshop now\b/, /\bcheckout\b/, /\bfree (?:shipping|delivery|returns)\b/, /\bin stock\b/,
  /\bbuy (?:now|online)\b/, /\border online\b/, /\bshop (?:online|the|our|all|coffee|by)\b/, /\bcart\b/, /\bgift cards?\b/,
  /\bships?\b/, /\bbest ?sellers?\b/, /\bnew (?:arrivals|in)\b/, /\bsale\b/, /\bfinancing\b/, /\bshowrooms?\b/
]
const makingCues = [
  /\b(?:we|our \w+) (?:design and |design, )?(?:make|makes|made|craft|brew|distill|roast|forge|bake|pour|throw|build|mix|sew|knit|weave|mill|mash|ferment|culture|wedge|melt|print|churn|cut and sew|set type|press|presses|smoke|cure)\b/,
  /\bhand[- ]?(?:made|poured|forged|thrown|crafted|built|tied|dyed|sewn)\b/, /\bmade (?:by hand|in our|here|on site|from scratch|to order)\b/,
  /\bsmall[- ]batch(?:es)?\b/, /\bfrom scratch\b/, /\bbuilt by hand\b/, /\bgrain to glass\b/, /\bbean to bar\b/,
  // "Our workshop", and with a place or a word or two between: "our Colorado factory", "our Grand Island plant".
  /\bour (?:[a-z]+ ){0,2}(?:workshop|studio|factory|plant|mill|forge|roastery|creamery|distillery|brewhouse|smiths|cheesemakers|bakers|woodworkers|kitchen|caves|still|winery|cidery)\b/,
  /\b(?:forged|roasted|brewed|distilled|baked|poured|thrown|aged|cured|milled|sewn|printed|churned|bottled|crushed|fermented|designed and sewn|welded|jig-welded|fabricated|spun|brazed|smoked) (?:by|in|on|every|this|from|overnight|nightly|over)\b/,
  // The steps named in a row, the making one last: "we wash, card and spin", "we cut, miter and braze".
  /\bwe (?:\w+, )+(?:\w+ )?and (?:spin|weave|knit|braze|weld|sew|bake|roast|brew|forge|cast|mill)\b/, /\bour (?:presses|press|loft|lab|shop floor)\b/,
  // Lines that produce (a plant's production, bottling or canning lines), and the steps of making named in a row.
  /\b(?:production|high-speed|bottling|canning|packing|assembly) lines?\b/, /\b(?:lines|ovens|bakers|brewers|roasters|millers) (?:bake|brew|roast|mill|make|fill|bottle|can|pack)\b/,
  /\b(?:grown|picked|crushed|pressed|fermented|aged|bottled|milled|baked|brewed|distilled|roasted)(?:,? (?:and )?(?:crushed|pressed|fermented|aged|bottled|milled|baked|brewed|distilled|roasted|packed|canned))+\b/,
  // A maker working alone says "my" and "I": my workshop, my bench, I make.
  /\bmy (?:\w+ )?(?:workshop|studio|bench|forge|kiln|loom|wheel)\b|\bi (?:make|forge|throw|sew|weave|carve|cast)\b/,
  /\b(?:cast|soldered|polished|carved|stitched|turned|set|finished|engraved)(?:,? (?:\w+ )?(?:and )?\w+)* by hand\b/
]
const repairCues = [
  /\brepairs?\b/, /\bwe (?:just )?fix\b|\bfix(?:es)? (?:them|it|your)\b/, /\bdiagnostics?\b/, /\bbreakdowns?\b|\broad service\b/, /\boverhauls?\b/
]
const connectionCues = [
  /\b\d+ ?(?:mbps|gbps)\b|\b\d+(?:\.\d+)? gig\b/, /\bdata caps?\b/, /\bfiber (?:internet|to the home|to your)\b|\bbroadband\b/,
  /\b(?:we own|our own) (?:the )?(?:lines|network|fiber|towers)\b/, /\bcheck (?:your )?address\b|\bservice (?:area|availability) map\b/, /\bwi-?fi router\b/
]
const staffedCues = [
  /\ba real (?:person|human|bookkeeper|accountant|receptionist|assistant|recruiter|editor|writer)\b|\breal people\b/,
  /\b(?:your|a) (?:own |named |dedicated )(?:bookkeeper|accountant|receptionist|assistant|account manager|recruiter|editor|writer|agent)\b/,
  /\blive (?:receptionists?|agents?|operators?|people|answering)\b/, /\bnot a (?:bot|robot|machine)\b/,
  /\bdone (?:for you|by (?:people|humans|our team|hand))\b/, /\bour (?:bookkeepers|accountants|receptionists|assistants|writers|editors|recruiters|agents)\b/
]
const softwareCues = [
  /\bsoftware\b/, /\bplatform\b/, /\bsaas\b/, /\b(?:web |mobile )?app\b/, /\bdashboard\b/, /\bintegrations?\b/, /\bapi\b/,
  /\bfree trial\b/, /\b(?:book|request|get) a demo\b/, /\blog ?in\b/, /\bin the cloud\b|\bcloud[- ]based\b/, /\bautomatic(?:ally)?\b/,
  /\/(?:month|mo)\b/, /\bper (?:user|seat|location|unit|vehicle)\b|\/(?:user|unit|vehicle|location)\b/, /\bpoint[- ]of[- ]sale(?: system)?\b/,
  /\bby (?:monthly |annual )?subscription\b|\b(?:monthly|annual) subscriptions?\b(?! box)/,
  // The company saying it sells or publishes software: its own product, whatever trade the words name.
  /\b(?:sells?|publish(?:es)?|licenses?) [\w\s-]{0,40}software\b/,
  /\bin real time\b|\breal-time\b/, /\bfeatures\b/
]
const agencyCues = [
  /\b(?:development|digital|software) agency\b/, /\bhire (?:us|our)\b/, /\bour (?:engineers|developers)\b/, /\bcase stud(?:y|ies)\b/,
  /\bdedicated (?:team|squad)\b/, /\bfixed[- ]price\b/, /\b(?:design and build|we build|builds) (?:custom |their |your )?(?:web|mobile|software|apps?|booking|websites?|products?)\b/,
  /\bcode you own\b/, /\bsprints?\b/, /\b(?:design|build|design and build|designed and built) (?:your|their|custom) (?:site|website|app|store)s?\b/
]
const hostingCues = [/\bhosting\b/, /\bdata cent(?:er|re)s?\b/, /\bservers?\b/, /\buptime\b/, /\bbackups?\b/, /\bcdn\b/]
const holdingCues = [
  /\bsubsidiar(?:y|ies)\b/, /\bparent (?:company|of)\b/, /\bholding company\b/, /\bholdings\b/, /\bour (?:companies|businesses|brands|operating companies)\b/,
  /\boperating companies\b/, /\bportfolio (?:of|companies)\b/, /\b(?:majority|controlling) (?:stakes?|interests?)\b/, /\bfamily of (?:companies|brands)\b/,
  /\b(?:owns|we own|own and oversee|owns and oversees)\b/, /\b(?:run|managed|led) by (?:its|their) own\b|\bunder their own names\b|\bown management\b/,
  /\bgroup\b/, /\b(?:head|group) office\b/, /\bshared services\b/, /\b(?:built|a) group of\b/, /\bgroup (?:of companies|headquarters)\b/, /\bholds? the shares\b|\bappoints? the boards?\b|\ballocates? capital\b/
]
const wholesaleCues = [
  /\bwholesale(?:rs?)?\b/, /\bdistributors?\b/, /\bdistribution cent(?:er|re)s?\b/, /\b(?:trade|contractor|dealer) accounts?\b/, /\bnet[- ]30\b/,
  /\bbranches\b/, /\bwarehouses?\b/, /\bwill[- ]call\b/,
  // Selling on account to businesses, not over a counter to the public.
  /\bbusiness accounts only\b|\bon account\b/, /\binvoiced monthly\b|\bcontract pricing\b|\bnet terms\b/,
  /\bno retail (?:store|showroom|counter)\b|\btrade only\b|\bnot (?:open )?to the public\b|\bdo not sell to the public\b/,
  /\bfrom [\d,]+ (?:manufacturers|suppliers|vendors|mills)\b/,
  /\bfoodservice\b|\bretail partners\b|\b(?:stock|stocks|stocking) (?:the |their )?shelves\b/, /\bopen an account\b|\bjobsite delivery\b/, /\b(?:we )?(?:stock|supply|distribute)s? [\d,]+ (?:products|items|skus)\b/, /\bto (?:retailers|grocers|contractors|hospitals|clinics|restaurants|dealers)\b/,
  // Bulk to businesses: by the pallet, to businesses only, bins kept filled on the customer's floor, a credit
  // application, a stock counted in SKUs, a produce house's terminal market and order guide.
  /\bby the (?:pallet|container|truckload)\b|\bto businesses only\b|\bbusinesses only\b/, /\bvendor[- ]managed inventory\b|\bvmi\b/, /\bcredit application\b/,
  /\b(?:stocking|carrying|we carry) [\d,]+ (?:\w+ )?(?:products|items|skus|parts)\b/, /\bterminal market\b|\border guide\b/
]
const usedCues = [/\bpre[- ]?(?:loved|owned)\b/, /\bvintage\b/, /\bconsign(?:ment|ed)?\b/, /\bsecond[- ]?hand\b/, /\bthrift\b/, /\bused (?:cars?|vehicles?|goods|clothing|books|furniture)\b/, /\bantiques?\b/]

const growingCues = [/\bwe (?:grow|raise|harvest|pick)\b|\bwe (?:\w+, )*\w+ and (?:grow|raise|harvest)\b/, /\b(?:grown|acres) under (?:glass|cover|plastic)\b/, /\bgrown (?:by|on|in) (?:our|us)\b|\bon our own land\b/, /\bour (?:fields|farm|orchards?|herd|acres|pastures?|vineyards?)\b/]
const resellCues = [
  /\bwe buy (?:from|at|direct|small|only)\b/, /\bfrom (?:\d+ |small |local |independent |farmstead )+(?:makers|producers|farms|growers|roasters|cheesemakers|brands)\b/,
  /\brestock(?:ed|s)?\b/, /\bsold by the (?:ounce|pound|lb|kilo)\b/
]
const diningCues = [/\bmenus?\b/, /\breserv(?:e|ations?) a table\b|\bbook a table\b|\breservations?\b/, /\bdine[- ]in\b|\btake-?out\b|\bcarry-?out\b|\bdining room\b/, /\b(?:brunch|lunch|dinner)\b/]
const managingCues = [
  /\bhead office\b|\bsupport cent(?:re|er)\b|\bregional (?:office|headquarters)\b|\bcorporate (?:headquarters|office)\b/,
  // The units it manages, in any wording: "we run our stores", "our teams manage the company's 31 hotels".
  /\b(?:we|it|our teams?|teams) (?:manage|manages|oversee|oversees|run|runs|operate|operates) (?:the |our |its |all |every )?(?:company's |group's |chain's )?(?:\d+ )?(?:chain|stores|region|plants|subsidiaries|operating companies|branches|hotels|restaurants|locations|properties|clinics|dealerships)\b/,
  /\b(?:appoints?|hires?|hiring) (?:and oversees? )?(?:the |store |local |general |hotel |restaurant )*(?:management|managers|boards?)\b|\bsets? (?:room |menu )?(?:budgets|prices|rates)\b/,
  /\bno \w+ (?:are|is) (?:sold|made|produced)\b|\bhas no operations of its own\b|\bhas no (?:guest rooms|stores|shops|restaurants|dining rooms|plants|factories)\b/
]
const arrangingCues = [
  /\b(?:freight|property|truck|logistics|load|transportation) brok(?:er|ers|erage)\b/,
  /\bown no (?:trucks|ships|vessels|aircraft|planes|trailers)\b|\bnon-asset\b|\basset[- ]light\b/,
  /\bcarrier (?:network|partners)\b|\b(?:vetted|independent|contracted|partner) carriers\b/,
  /\bquick ?pay\b|\bfor carriers\b|\bhaul our freight\b/,
  /\barrang(?:e|es|ing) (?:freight|shipments|transportation|transport)\b/
]
const withDriverCues = [/\bwith (?:a |our |their )?(?:professional |experienced |licensed |uniformed )?(?:drivers?|chauffeurs?)\b/, /\bchauffeur(?:s|ed)\b/]

const schoolCues = [/\btuition\b/, /\bcohorts?\b/, /\bgraduates\b|\balumni\b/, /\badmissions?\b/]
const teachingCues = [
  ...schoolCues, /\bclasses\b|\bcourses?\b/, /\b(?:taught|teach|teaches) by\b|\binstructors?\b/, /\bapply\b|\benrol(?:l|ls|lment)\b/,
  /\b\d+[- ]weeks?\b/
]

const bankCues = [/\bbancorp\b|\bbancshares\b|\bbancorporation\b/, /\b(?:bank|financial) holding company\b/, /\bparent (?:company )?of [\w\s]{0,30}\bbank\b/, /\bbank subsidiar(?:y|ies)\b/]

/** A price by the hour or the day: a rental. */
const rentalPrice = /\b\d+ (?:hours?|days?|nights?)\b|\b(?:half|full)[- ]day\b|\/(?:hour|day|night)\b|\bper (?:hour|day|night)\b/

/** A price per period or per unit of use (a plan, a rate, a rental by the hour or day), not a good. */
const planPrice = /\/(?:month|mo|year|yr|user|unit|vehicle|location|day|night|week|visit|hour|ton|lb)\b|\bper\b|\b\d+ (?:hours?|days?|nights?)\b|\b(?:half|full)[- ]day\b/

/** Reads the business-model cues of the whole site (every page, buttons and link labels included). */
export const modelOf = (evidence: CompanyEvidence): Model => {
  const parts: Array<string> = []
  let pricedItems = 0
  let rented = 0
  for (const page of evidence.pages) {
    parts.push(page.title ?? "", page.description ?? "", ...page.headings.map((h) => h.text), ...page.nav, page.text.slice(0, 8000))
    parts.push(...(page.buttons ?? []), ...page.links.map((l) => l.label))
    for (const offer of page.offers ?? []) {
      parts.push(offer)
      if (!planPrice.test(offer.toLowerCase())) pricedItems++
      if (rentalPrice.test(offer.toLowerCase())) rented++
    }
  }
  const text = parts.join("\n").toLowerCase()
  return {
    commerce: count(text, commerceCues),
    making: count(text, makingCues),
    software: count(text, softwareCues),
    agency: count(text, agencyCues),
    hosting: count(text, hostingCues),
    holding: count(text, holdingCues),
    wholesale: count(text, wholesaleCues),
    used: count(text, usedCues),
    bank: count(text, bankCues),
    pricedItems,
    grows: count(text, growingCues),
    resell: count(text, resellCues),
    rented,
    dining: count(text, diningCues),
    managing: count(text, managingCues),
    arranging: count(text, arrangingCues),
    withDriver: count(text, withDriverCues),
    teaching: count(text, teachingCues),
    school: count(text, schoolCues),
    connection: count(text, connectionCues),
    repairs: count(text, repairCues),
    staffed: count(text, staffedCues)
  }
}

/** A family of goods: its words, and the codes of selling it, making it and distributing it. */
interface Family {
  readonly retail: string
  readonly maker?: string
  /** The maker's code when it makes for other businesses to sell (a wholesale bakery), if that differs. */
  readonly bulkMaker?: string
  /** The code of renting the goods out (kayaks by the hour), when they are commonly rented. */
  readonly rental?: string
  readonly wholesale?: string
  /** The family's words as regular-expression alternatives (no capturing groups). */
  readonly words: string
}

const family = (
  retail: string,
  maker: string | undefined,
  wholesale: string | undefined,
  words: string,
  bulkMaker?: string,
  rental?: string
): Family => ({
  retail,
  ...(maker === undefined ? {} : { maker }),
  ...(bulkMaker === undefined ? {} : { bulkMaker }),
  ...(rental === undefined ? {} : { rental }),
  ...(wholesale === undefined ? {} : { wholesale }),
  words
})

/** Goods families; words are lower-case alternatives, plurals added by the pattern. */
const families: ReadonlyArray<Family> = [
  family("449110", "337122", "423210", "sofa|sectional|couch|loveseat|(?:dining|coffee|side|trestle|farmhouse|kitchen|end|console|writing) (?:table|set|chair)|dresser|nightstand|bookcase|armchair|accent chair|recliner|mattress|bed|bed frame|headboard|furniture|sideboard|wardrobe"),
  family("459210", undefined, "424920", "books|hardcover|paperback|novel|picture book|signed first edition|bookshop|bookstore"),
  family("459110", "339920", "423910", "tent|backpack|sleeping bag|kayak|paddle board|camping gear|hiking boot|trail runner|ski|snowboard|golf club|fishing rod|helmet|outdoor gear", undefined, "532284"),
  family("459110", "336991", "423910", "bike|bicycle|e-bike|road bike|gravel bike|mountain bike|frameset", undefined, "532284"),
  family("459310", "111422", "424930", "bouquet|posy|rose|peony|peonie|floral arrangement|flower arrangement|stem|wedding flower|sympathy arrangement"),
  family("458110", "315250", "424350", "tee|t-shirt|jean|denim|dress|jacket|knitwear|sweater|crewneck|hoodie|apparel|clothing|blouse|skirt|coat"),
  family("458210", "316210", "424340", "shoe|sneaker|sandal|footwear|loafer"),
  family("444140", "332216", "423710", "hand tool|power tool|fastener|screw|key cutting|hardware|drill bit"),
  family("444240", "111421", "424930", "perennial|shrub|houseplant|plants(?! (?:and )?(?:maintenance|managers?|operations|floors?|engineers?|shutdowns?))|(?<!\\b(?:our|the|processing|manufacturing|production|power|packing|bottling|treatment) )plant(?! (?:maintenance|managers?|operations|floors?|engineers?|shutdowns?))|potting mix|potting soil|seedling|planter|pot|succulent|cactus|cacti|fern|orchid|monstera|hydrangea|fig tree|fiddle leaf fig|mulch"),
  family("441110", "336110", "423110", "new car|sedan|suv|pickup truck|new vehicle"),
  family("456110", "325412", "424210", "prescription|refill|flu shot|pharmacist|vaccine"),
  family("445320", "312130", "424820", "wine|pinot noir|pinot gris|chardonnay|cabernet|merlot|sauvignon blanc|riesling|syrah|zinfandel|malbec|prosecco|champagne"),
  family("445320", "312140", "424820", "bourbon|whiskey|whisky|vodka|gin|tequila|spirit"),
  family("445320", "312120", "424810", "craft beer|ipa|4-pack|six-pack"),
  family("456130", "339115", "423460", "frame|eyeglass|sunglass|glasses|lens|lense|contact lens|eyewear|aviator"),
  family("459120", "339930", "423920", "toy|board game|puzzle|wooden train|doll|lego|craft kit"),
  family("445110", undefined, "424410", "grocer(?:y|ie)|produce|deli|bakery|dairy|frozen food|pantry|banana|chicken thigh|meat and seafood|weekly special"),
  family("456120", "325620", "424210", "skincare|makeup|lipstick|serum|cosmetic|hair color|perfume|fragrance|mascara|moisturizer|hair dryer"),
  family("458310", "339910", "423940", "ring|necklace|earring|bracelet|engagement ring|pendant|jewel(?:le)?ry"),
  family("459910", "311111", "424490", "dog food|cat food|pet food|kibble|treat|leash|bully stick|dog wash|litter|chew"),
  family("445298", "311920", "424490", "coffee bean|whole bean|single origin|espresso blend|house blend|green coffee|coffee subscription"),
  family("445298", "311513", "424430", "cheese|cheddar|curd|brie|gouda|alpine wheel"),
  family("445298", "311224", "424490", "olive oil|evoo|extra virgin|infused oil"),
  family("459420", "339999", "424990", "candle|wax melt|wick"),
  family("456120", "325611", "424690", "soap|bar soap|body wash|lotion|lip balm"),
  family("449129", "332215", "423710", "knife|knive|chef's knife|blade|paring knife|cleaver"),
  family("449129", "327110", "423220", "mug|serving bowl|dinner plate|stoneware|ceramic|porcelain|vase|pottery"),
  family("459420", "323111", "424120", "greeting card|birthday card|card|gift box|art print|map print|souvenir|postcard"),
  family("449210", "334111", "423620", "laptop|phone|tv|television|headphone|speaker|appliance|refrigerator|washer"),
  family("441222", "336612", "423910", "boat|pontoon|bowrider|bass boat|jet ski|outboard", undefined, "532284"),
  family("441210", "336214", "423110", "rv|motorhome|travel trailer|fifth wheel|toy hauler|camper van"),
  family("441227", "336991", "423110", "motorcycle|dirt bike|atv|utv|side-by-side"),
  family("449210", "334610", "423990", "vinyl|lp|record|cd|dvd|turntable|blu-ray"),
  family("459130", "313210", "424310", "yarn|fabric|quilting|sewing pattern|knitting needle"),
  family("459140", "339992", "423990", "guitar|piano|drum|amp|ukulele|violin|sheet music"),
  family("449129", "314120", "423220", "bedding|duvet|towel|throw pillow|curtain|rug|cookware|kitchenware|tableware|table linen|linen|lamp|mirror|home decor"),
  family("457210", undefined, "424720", "propane|heating oil|fuel oil"),
  family("456191", "325411", "424210", "vitamin|supplement|protein powder|probiotic"),
  family("445230", "111219", "424480", "sweet corn|tomato|tomatoe|peach|peache|berry|berrie|strawberr(?:y|ie)|apple|pumpkin|vegetable|fruit"),
  family("459991", "312230", "424940", "vape|e-liquid|cigar|tobacco|hookah"),
  family("444180", "321911", "423310", "lumber|plywood|drywall|decking|cabinet|countertop"),
  family("445240", "311612", "424470", "steak|ribeye|sirloin|brisket|pork chop|pork belly|sausage|bacon|rib of beef|lamb shoulder|leg of lamb|mince|ground beef|meat box|meat boxe"),
  family("441330", "336340", "423120", "brake pad|brake rotor|car battery|group \\d+ battery|oil filter|air filter|wiper blade|spark plug|motor oil|alternator|auto part|car part"),
  family("445131", undefined, "424450", "snack|cold drink|soda|lottery|lottery ticket|hot dog|energy drink|slushie|candy bar"),
  family("445298", "311942", "424490", "spice|spice blend|paprika|chile|chiles|masala|cumin|peppercorn|za'atar|sumac"),
  family("449121", "314110", "423220", "carpet|hardwood floor|vinyl plank|luxury vinyl|laminate floor|flooring"),
  family("449122", "337920", "423220", "blind|shade|shutter|plantation shutter|roller shade|window treatment"),
  family("445250", undefined, "424460", "fish|fillet|shellfish|lobster|scallop|clam|mussel|shrimp|prawn|seafood|salmon|haddock|halibut|crab"),
  family("445291", "311811", "424490", "sourdough|loaf|loave|croissant|baguette|pastry|pastrie|cupcake|muffin|scone|bagel|pie|layer cake|celebration cake|custom cake|sandwich bread", "311812"),
  family("459410", "339940", "424120", "toner|copy paper|printer paper|office supplies|office supply|ink cartridge|breakroom supplies"),
  family("444240", "311119", "424910", "layer pellet|layer feed|chick starter|horse feed|livestock feed|feed store|t-post|fence post|fly spray|mineral tub|fence charger|stock tank"),
  // Industrial supplies have no shop of their own: sold to plants by distributors, whatever the channel.
  family("423840", "333613", "423840", "bearings|ball bearing|roller bearing|gearbox|gear reducer|sprocket|v-belt|hydraulic pump|hydraulic cylinder")
]

/** Every family's words in one pattern, one capturing group per family, so a text is scanned once. */
const familyPattern = new RegExp(`\\b(?:${families.map((f) => `(${f.words})`).join("|")})(?:s|es)?\\b`, "g")

/** Each family's strength on the site: priced items count most, then titles and headings, then the text. */
const familyStrengths = (evidence: CompanyEvidence): { all: Map<Family, number>; priced: Map<Family, number> } => {
  const out = new Map<Family, number>()
  // Offers (priced items) naming each family: counted apart, since a price per pound or per yard is still a good's.
  const priced = new Map<Family, number>()
  const add = (text: string, weight: number, isOffer = false) => {
    const hits = new Map<Family, number>()
    for (const match of text.toLowerCase().matchAll(familyPattern)) {
      const at = match.findIndex((group, i) => i > 0 && group !== undefined)
      const f = families[at - 1]
      if (f !== undefined) hits.set(f, (hits.get(f) ?? 0) + 1)
    }
    for (const [f, n] of hits) {
      out.set(f, (out.get(f) ?? 0) + weight * Math.min(n, 3))
      if (isOffer) priced.set(f, (priced.get(f) ?? 0) + 1)
    }
  }
  evidence.pages.forEach((page, index) => {
    const w = index === 0 ? 1 : 0.7
    for (const offer of page.offers ?? []) add(offer, 2 * w, true)
    add([page.title ?? "", page.description ?? "", ...page.headings.map((h) => h.text)].join("\n"), 1.5 * w)
    add(page.nav.join("\n"), 0.5 * w)
    add(page.text.slice(0, 5000), 0.5 * w)
  })
  return { all: out, priced }
}

/** Score adjustments by code: bonuses for the activity sold, and factors for the codes a model rules out. */
export interface Adjustments {
  readonly bonus: Map<string, number>
  /** Multipliers by code prefix (sector or subsector), applied before the bonuses. */
  readonly factor: ReadonlyArray<readonly [string, number]>
}

const add = (map: Map<string, number>, code: string, value: number) => map.set(code, (map.get(code) ?? 0) + value)

/** The adjustments the business model and the goods sold call for. */
export const adjustments = (evidence: CompanyEvidence): Adjustments => {
  const m = modelOf(evidence)
  const bonus = new Map<string, number>()
  const factor: Array<readonly [string, number]> = []
  // A software product: the industry it serves is its customers', not its own. A school whose site looks like a
  // product's (plans, log in, a free trial) sells teaching: tuition, cohorts and graduates are a school's alone.
  const teaches = m.teaching >= 4 && m.school >= 2
  // A carrier selling speeds over its own lines has plans and a log in too: a connection is no software product.
  const carries = m.connection >= 3
  // Nor is a service people perform, sold in monthly plans with an app to follow it: the plans buy the people's work.
  const staffed = m.staffed >= 2
  if (carries || staffed) factor.push(["5132", 0.5])
  if (m.software >= 4 && m.agency < 2 && !teaches && !carries && !staffed) {
    if (m.hosting >= 3) add(bonus, "518210", 2 * m.hosting)
    else add(bonus, "513210", 2 * m.software)
  } else if (m.agency >= 2 && m.software >= 1) {
    add(bonus, "541511", 3 * m.agency + m.software)
  } else if (m.hosting >= 3) {
    add(bonus, "518210", 2 * m.hosting)
  }
  // What a school teaches (software, coding, cloud) is its courses' subject, not its trade.
  if (teaches) factor.push(["5132", 0.5], ["5415", 0.6], ["5182", 0.6])
  // A group that owns companies: the group's own activity is holding them.
  if (m.holding >= 3) {
    // A bank's parent is a bank holding company.
    add(bonus, m.bank >= 1 ? "551111" : "551112", 3 * m.holding)
    factor.push(["31", 0.7], ["32", 0.7], ["33", 0.7], ["72", 0.7], ["62", 0.7], ["44", 0.7], ["45", 0.7], ["48", 0.7], ["21", 0.8], ["23", 0.8])
  } else if (m.managing >= 3) {
    // A head office or regional office that manages its group's units: managing them is its activity, not their trade.
    add(bonus, "551114", 3 * m.managing)
    factor.push(["44", 0.7], ["45", 0.7], ["31", 0.7], ["32", 0.7], ["33", 0.7], ["72", 0.7])
  } else if (m.bank >= 2 && m.holding >= 1) {
    // A bancorp or bancshares that names its bank as its subsidiary needs fewer group cues: the bank says what it holds.
    add(bonus, "551111", 3 * (m.holding + m.bank))
  }
  // A broker that owns no trucks arranges the freight: the arranging is its activity, not the carriers' hauling.
  if (m.arranging >= 2) {
    add(bonus, "488510", 2 * m.arranging)
    factor.push(["484", 0.6], ["483", 0.6], ["4811", 0.6])
  }
  // Vehicles hired with their drivers are transport (a charter, a chauffeur), not the rental of a vehicle.
  if (m.withDriver >= 1) factor.push(["5321", 0.5])
  // A shop: cart, shipping and "shop now" cues, or priced goods with at least one of them (a priced menu is not a shop).
  const shop = m.commerce >= 2 || (m.pricedItems >= 2 && m.commerce >= 1)
  const makes = m.making >= 2
  // A shop that delivers what it sells is still a shop: its delivery is no courier's trade.
  if (shop && !makes) factor.push(["31", 0.6], ["32", 0.6], ["33", 0.6], ["11", 0.7], ["492", 0.6])
  // A restaurant that delivers its food is still a restaurant: its delivery is no courier's trade either.
  if (m.dining >= 2) factor.push(["492", 0.5])
  // A place to eat with a priced menu cooks what it serves: it farms and manufactures none of it (its eggs, its pie).
  if (m.dining >= 3 && m.pricedItems >= 2 && !makes && m.grows === 0) factor.push(["11", 0.6], ["311", 0.7])
  // A shop that fixes what others make (repairs, diagnostics, road service, overhauls) and says nothing of making it
  // is no maker of those goods.
  if (m.repairs >= 3 && !makes) factor.push(["33", 0.7])
  // A shop or counter that says it buys from makers (or at the market) resells their goods: no maker, no farm.
  if (m.resell >= 1 && !makes) factor.push(["31", 0.7], ["32", 0.7], ["33", 0.7], ["11", 0.8])
  // A site that sells priced goods from a cart is no mine, whatever metal its goods are made of.
  if (shop && m.pricedItems >= 2 && m.commerce >= 2) factor.push(["21", 0.2])
  // A distributor sells to businesses what others make: the merchant wholesalers' codes over the makers' and users'.
  // A grower that sells wholesale is still a grower: only sellers of what others grow or make are distributors.
  // One that never says it makes anything is further from the makers' codes still.
  if (m.wholesale >= 3 && !shop && !makes && m.grows === 0) {
    const makers = m.making === 0 ? 0.6 : 0.8
    factor.push(["42", 1.5], ["31", makers], ["32", makers], ["33", makers], ["11", 0.8])
  }
  const { all: strengths, priced } = familyStrengths(evidence)
  // Used goods in a shop, whatever they are (antiques, vintage, consignment): the used-merchandise retailer. A dealer of
  // vehicles (cars, boats, RVs, motorcycles) that sells pre-owned ones beside new ones stays a dealer.
  const dealer = [...strengths.keys()].some((f) => f.retail.startsWith("441"))
  if (shop && m.used >= 1 && !dealer) add(bonus, "459510", 2 * m.used)
  for (const [f, strength] of strengths) {
    const s = Math.min(strength, 12)
    if (m.rented >= 2 && !shop) {
      // Goods priced by the hour or the day are rented out: the rental code, and no shop's or maker's.
      if (f.rental !== undefined) add(bonus, f.rental, 0.8 * s)
      continue
    }
    // A place to dine that pours wine or beer makes none of it by saying "our kitchen": drink makers need no menu.
    if (makes && f.maker !== undefined && !(m.dining >= 2 && f.retail === "445320")) {
      if (f.bulkMaker !== undefined && m.wholesale >= 2 && !shop) {
        // Makers who sell to other businesses (grocers, restaurants) and not to visitors: the bulk maker alone.
        add(bonus, f.bulkMaker, 0.8 * s)
        continue
      }
      // Makers who sell what they make: making first, the selling second.
      add(bonus, f.maker, 0.8 * s)
      add(bonus, f.retail, (shop ? 0.5 : 0.3) * s)
    } else if (shop) {
      const retail = m.used < 1 || (dealer && f.retail !== "441110") ? f.retail : f.retail === "441110" ? "441120" : "459510"
      add(bonus, retail, 0.8 * s)
    } else if (m.wholesale >= 2 && f.wholesale !== undefined) {
      // Goods with no retail trade of their own (industrial supplies) leave the distributor the only trade in them.
      add(bonus, f.wholesale, (f.retail === f.wholesale ? 1 : 0.5) * s)
    } else if (f.retail === f.wholesale) {
      // Goods with no retail trade of their own (industrial parts) are a distributor's only when it says it distributes.
      continue
    } else if (m.software < 4 && m.dining < 2 && ((priced.get(f) ?? 0) >= 2 || ((priced.get(f) ?? 0) >= 1 && m.pricedItems >= 2))) {
      // No cart, but goods of the family carry prices: what is priced is what the customer buys, at a counter.
      add(bonus, f.retail, 0.5 * s)
    } else if (m.making === 0 && m.grows === 0 && m.wholesale < 2 && m.software < 4 && m.dining < 2) {
      // Goods named with no word of making or growing them and none of selling in bulk: more likely sold than made.
      add(bonus, f.retail, 0.3 * s)
    }
  }
  return { bonus, factor }
}
