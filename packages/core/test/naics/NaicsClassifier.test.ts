import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as CompanyEvidence from "../../src/CompanyEvidence.js"
import { modelOf } from "../../src/internal/naics/activity.js"
import * as Naics from "../../src/Naics.js"
import * as NaicsClassifier from "../../src/NaicsClassifier.js"

/** A one-page company from plain parts (written here, independent of the evaluation set). */
const company = (title: string, description: string, paragraphs: ReadonlyArray<string>, jsonLdType = "Organization") => ({
  domain: "example.test",
  pages: [CompanyEvidence.fromHtml("https://example.test/", `<!doctype html><html><head><title>${title}</title>
<meta name="description" content="${description}">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"${jsonLdType}"}</script></head>
<body><nav><a href="/">Home</a><a href="/contact">Contact</a></nav><main><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join("")}</main></body></html>`)]
})

const top = (evidence: CompanyEvidence.CompanyEvidence) => NaicsClassifier.classify(evidence, { maxResults: 5 })

describe("NaicsClassifier", () => {
  it("classifies software sold to an industry as software, not that industry", () => {
    const ranked = top(company("Kitchenly – Inventory software for restaurants", "Cloud inventory and recipe costing software for restaurants and bakeries.",
      ["Restaurants use Kitchenly to track stock and cut food waste.", "Start a free trial or book a demo."]))
    expect(ranked[0]!.code).toBe("513210")
    expect(ranked.slice(0, 1).map((r) => r.code)).not.toContain("722511")
  })

  it("classifies a holding company as a holding company, not its subsidiaries' trades", () => {
    const ranked = top(company("Ostrander Holdings", "Ostrander Holdings is a holding company with controlling interests in trucking and hotel companies.",
      ["Our portfolio companies are run by their own management teams."]))
    expect(ranked[0]!.code).toBe("551112")
  })

  it("keeps a farm that bottles its own milk a farm, and a brewery with a taproom a brewery", () => {
    expect(top(company("Hollow Creek Dairy", "Family dairy farm milking 90 cows; we bottle our own milk on the farm.",
      ["Our dairy herd grazes 200 acres.", "Our milk is bottled in our farm creamery."]))[0]!.code).toBe("112120")
    expect(top(company("Stonecut Brewing Co.", "Craft brewery and taproom.",
      ["We brew our beers on site and pour them in our taproom with food trucks on weekends."]))[0]!.code).toBe("312120")
  })

  it("reads what a shop prices: a store selling furniture is a retailer, a workshop selling the tables it builds a maker", () => {
    const shop = (title: string, description: string, items: ReadonlyArray<readonly [string, string]>, blurb: string) => ({
      domain: "example.test",
      pages: [CompanyEvidence.fromHtml("https://example.test/", `<!doctype html><html><head><title>${title}</title>
<meta name="description" content="${description}"></head><body><header><a href="/">${title}</a>
<nav><a href="/living">Living</a><a href="/bedroom">Bedroom</a><a href="/sale">Sale</a></nav><a href="/cart">Cart (0)</a></header>
<main><h1>${title}</h1><p>${description}</p><ul>${
        items.map(([name, price]) => `<li><h3>${name}</h3><span class="price">${price}</span><button>Add to cart</button></li>`).join("")
      }</ul><p>${blurb}</p></main></body></html>`)]
    })
    const store = top(shop("Maple & Main", "Sofas, beds and dining sets from the brands you love, delivered free.",
      [["Oslo sectional", "$1,899"], ["Bramley king bed", "$1,150"], ["Walnut dining set", "$980"]], "Visit our showroom or shop online."))
    expect(store[0]!.code).toBe("449110")
    const maker = top(shop("Copper Beech Woodworks", "Dining tables and beds built by hand in our workshop from local cherry and oak.",
      [["Cherry trestle table", "$3,200"], ["Oak bed frame", "$2,400"]], "Our woodworkers cut, join and finish every piece in our workshop."))
    expect(maker[0]!.code.slice(0, 3)).toBe("337")
    expect(maker.slice(0, 5).map((r) => r.code)).toContain("449110")
  })

  it("reads goods priced at a counter (no cart) as a shop's, and a bancorp that names its bank as a bank holding company", () => {
    const counter = top(company("Pier Nine Lobster", "Live lobsters, sea scallops and haddock off the boats each morning, sold at our wharf counter.",
      ["Live lobster, per lb — $12", "Haddock fillet, per lb — $14", "Sea scallops, per lb — $24", "Open Tuesday to Sunday."]))
    expect(counter[0]!.code).toBe("445250")
    const bancorp = top(company("Cedar Valley Bancshares, Inc.", "The parent company of Cedar Valley Bank, serving the valley since 1902.",
      ["Cedar Valley Bank operates fourteen branches.", "Quarterly dividends and annual reports for shareholders."]))
    expect(bancorp[0]!.code).toBe("551111")
  })

  it("reads a chain's head office as the office that manages it, and a jeweller working at her own bench as a maker, not a mine", () => {
    const office = top(company("Fairway Pharmacies Head Office", "The head office of the Fairway chain of 60 pharmacies.",
      ["From our head office in Derby we run the chain: we set prices, buy for every branch and appoint the branch managers.",
        "No medicines are sold at this address."]))
    expect(office[0]!.code).toBe("551114")
    const jeweller = top(company("Wren Goldwork", "Gold and silver rings handmade in my Edinburgh studio. Add to cart; free shipping.",
      ["Hammered gold band — £380", "Silver stacking ring — £55", "Shop now. Each ring is cast, soldered and polished by hand at my bench."]))
    expect(jeweller[0]!.code).toBe("339910")
  })

  it("reads a counter that buys its cheese from makers as a shop, not a cheese maker", () => {
    const ranked = top(company("Harvest Lane Cheese", "Over 150 cheeses from small farmstead cheesemakers, cut to order at our counter.",
      ["Aged gouda, per lb — $24", "Alpine wheel, per lb — $28", "We buy direct from 30 farmstead cheesemakers and age a few wheels in our cellar."]))
    expect(ranked[0]!.code).toBe("445298")
    expect(ranked.slice(0, 5).map((r) => r.code)).toContain("311513")
  })

  it("keeps a restaurant that delivers its own food a restaurant, not a courier", () => {
    const ranked = top(company("Luigi's Slice House", "Hand-tossed pizzas, calzones and salads for carryout and fast delivery across the east side.",
      ["See the menu and order for delivery or carryout.", "Our drivers deliver hot in 30 minutes or less."]))
    expect(ranked[0]!.code.slice(0, 4)).toBe("7225")
    expect(ranked[0]!.code.slice(0, 3)).not.toBe("492")
  })

  it("classifies a point-of-sale product full of restaurant words as software, and a group of hotels as a holding company", () => {
    const pos = top(company("Servewell – the POS for restaurants", "Take orders at the table, send tickets to the kitchen and run your restaurant menu from one screen.",
      ["Plans: Starter $0/month, Plus $59/month per location.", "Servers take orders tableside and guests pay at the table.",
        "Menus, dishes, tables and kitchen tickets in one app. Start a free trial or log in."]))
    expect(pos[0]!.code).toBe("513210")
    const group = top(company("Castellane Group", "The Castellane family's group owns five boutique hotels, three restaurants and a vineyard.",
      ["Each hotel and restaurant is run by its own management team.", "From our head office we fund growth and provide finance and legal services to our companies."]))
    expect(group[0]!.code).toBe("551112")
    const bank = top(company("Lone Oak Financial Corporation", "Lone Oak Financial Corporation is a financial holding company and the parent of Lone Oak Bank.",
      ["Through its subsidiaries the company offers commercial and consumer banking in Texas.", "Our companies: Lone Oak Bank and Lone Oak Wealth Advisors."]))
    expect(bank[0]!.code).toBe("551111")
  })

  it("reads the about page closely when the homepage is ambiguous: a dairy farm with an ice cream parlor is a dairy farm", () => {
    const page = (title: string, description: string, body: string) =>
      `<!doctype html><html><head><title>${title}</title><meta name="description" content="${description}"></head><body><nav><a href="/about">About us</a></nav><main>${body}</main></body></html>`
    const evidence = {
      domain: "hollisreed.test",
      pages: [
        CompanyEvidence.fromHtml("https://hollisreed.test/", page("Hollis & Reed | Ice cream from the valley", "Thirty flavors scooped daily at the farm.",
          "<h1>Welcome to Hollis &amp; Reed</h1><h2>The parlor</h2><p>Stop by our ice cream parlor for a cone. Open daily in summer.</p>")),
        CompanyEvidence.fromHtml("https://hollisreed.test/about", page("About Hollis & Reed", "Our story.",
          "<h1>Our story</h1><p>Hollis &amp; Reed is a family dairy farm. We milk 150 Jersey cows twice a day and bottle their milk on the farm.</p>"))
      ]
    }
    const ranked = top(evidence)
    expect(ranked[0]).toMatchObject({ code: "112120", confidence: "high" })
    expect(ranked[1]!.code).toBe("311520")
  })

  it("does not read the brand word of a name as an activity, unless the site speaks of it", () => {
    const site = (domain: string, title: string, description: string, body: string) => ({
      domain,
      pages: [CompanyEvidence.fromHtml(`https://${domain}/`, `<!doctype html><html><head><title>${title}</title>
<meta name="description" content="${description}"></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`)]
    })
    const counseling = top(site("harborlightcounseling.test", "Harbor Light Counseling | Therapy in Portland",
      "Licensed therapists for anxiety, depression and couples.", "Harbor Light Counseling offers individual and couples therapy in person and online."))
    expect(counseling[0]!.code).toBe("621330")
    expect(counseling.map((r) => r.code)).not.toContain("488310")
    const silver = top(site("silverspur.test", "Silver Spur Mining", "An underground silver mine in Idaho.", "Silver Spur produces silver and lead concentrates."))
    expect(silver[0]!.code).toBe("212220")
  })

  it("keeps a vehicle dealer that sells pre-owned units beside new ones a dealer, not a used-goods shop", () => {
    const marina = top(company("Lakeshore Marine Sales", "New and pre-owned bowriders, pontoons and fishing boats, financing, trade-ins and outboard service.",
      ["2025 21' bowrider — $54,900", "Pre-owned 20' pontoon, 2019 — $22,500", "Winter storage and shrink wrap."]))
    expect(marina[0]!.code).toBe("441222")
    const rv = top(company("Summit RV Center", "New and pre-owned motorhomes, travel trailers and fifth wheels, with financing and an RV service bay.",
      ["2025 Class C motorhome — $118,900", "Pre-owned 28' travel trailer — $24,500", "Trade in your camper; financing on approved credit."]))
    expect(rv[0]!.code).toBe("441210")
    expect(rv.slice(0, 1).map((r) => r.code)).not.toContain("459510")
    const bikes = top(company("Crossroads Powersports", "New and pre-owned motorcycles, ATVs and side-by-sides from four brands. Financing available.",
      ["Adventure motorcycle, 2025 — $14,299", "Pre-owned UTV, 2022 — $11,900", "Parts counter and certified service department."]))
    expect(bikes[0]!.code).toBe("441227")
  })

  it("reads a managing office in other words (its teams run the restaurants, hire their managers), and hospitality is no hospital", () => {
    const office = top(company("Copperleaf Hospitality Group Corporate Office", "The corporate office behind Copperleaf's 40 family restaurants.",
      ["Our teams run the 40 restaurants: we hire general managers, set menu prices and plan every remodel.",
        "The corporate office has no dining rooms; guests eat at the restaurants themselves."]))
    expect(office[0]!.code).toBe("551114")
    expect(office.slice(0, 5).map((r) => r.code.slice(0, 3))).not.toContain("622")
  })

  it("reads a name with 'to' in it, a bar pouring brewers' beer and a distributor selling by the pallet as what they are", () => {
    // "Paws to Claws is a ...": the words after the name's "to" are the activity, not its customers.
    expect(top(company("Paws to Claws", "Book online.", ["Paws to Claws is a mobile dog grooming van."]))[0]!.code).toBe("812910")
    // "drafts from regional breweries": the breweries are its suppliers. (Its "drafts" still brings drafting services
    // close: the two share a stem.)
    const bar = top(company("The Copper Spigot", "A neighborhood bar with twenty drafts from regional breweries. We don't brew; we pour.",
      ["Pints $6, flights $11.", "Trivia Tuesdays and a dart league on Thursdays."])).map((r) => r.code)
    expect(bar[0]).not.toBe("312120")
    expect(bar.slice(0, 2)).toContain("722410")
    // By the pallet, to businesses only, vendor-managed bins, SKUs and a credit application: a distributor, and it
    // never says it makes anything.
    expect(top(company("Ironline Industrial Supply", "Bearings, belts and hose for maintenance crews, sold by the pallet or the box to businesses only.",
      ["Our reps refill vendor-managed inventory bins on your plant floor.", "Stocking 25,000 SKUs; fill out a credit application to open terms."]))[0]!.code)
      .toBe("423840")
  })

  it("reads a fiber internet provider with plans, an app and a log in as a carrier, not a software product", () => {
    const isp = company("Lakeshore Link", "Gigabit fiber internet for the lakeshore towns, on a network we built ourselves.",
      ["Plans: 500 Mbps $50/month, 1 Gig $70/month.", "No data caps. Check your address to see when we reach your street.",
        "Manage your account in our app; log in to pay online. Start your free trial month."])
    expect(top(isp)[0]!.code).toBe("517111")
  })

  it("reads a diner, a truck repair shop, a shooting range, a fish smokehouse and a CDL school as what they are", () => {
    // A priced menu is cooked, not farmed: eggs and pie are no egg farm or bakery plant.
    expect(top(company("Route 9 Diner", "Eggs any style, pancakes and pie, open from 5 a.m.",
      ["Two eggs, toast and home fries $8.99", "Meatloaf dinner $14.50", "Slice of apple pie $4.25", "Grab a booth; breakfast is served until close. See the full menu."]))[0]!.code)
      .toBe("722511")
    // Repairs, diagnostics, breakdowns and road service, and no word of making: no truck maker.
    expect(top(company("Ironhorse Truck Service", "Semi truck and trailer repair with 24-hour road service.",
      ["Engine diagnostics, brakes, clutches and DOT inspections for owner-operators and fleets.", "Breakdown on the interstate? Our service trucks come to you."]))[0]!.code)
      .toBe("811111")
    expect(top(company("Bullseye Indoor Range", "Ten shooting lanes, gun rentals and memberships.",
      ["Book a lane online; walk-ins welcome.", "Intro to handgun classes on Saturdays."]))[0]!.code).toBe("713990")
    // "smoke it over maple", "cold-smoked": the smokehouse makes what it sells.
    expect(top(company("Northwind Smoked Fish", "Hot-smoked trout and cold-smoked salmon from our smokehouse on Lake Superior.",
      ["We brine the fish overnight and smoke it over maple.", "Order online or find our packs at co-ops around Duluth."]))[0]!.code).toBe("311710")
    expect(top(company("Keystone CDL School", "Get your Class A CDL in three weeks.",
      ["Classroom, range and road training with our own trucks.", "Tuition assistance and job placement with regional carriers."]))[0]!.code).toBe("611519")
  })

  it("knows a wedding photographer, a guitar teacher, a boxing gym and a cut-your-own Christmas tree farm by their own words", () => {
    expect(top(company("Willow & Light", "Wedding photography and family sessions around Asheville.",
      ["Full-day coverage with a second shooter.", "Your online gallery arrives within six weeks; mini sessions every fall."]))[0]!.code).toBe("541921")
    expect(top(company("Fretwork Studio", "Guitar lessons and piano lessons for kids and adults.",
      ["Weekly 30-minute lessons, $120 a month.", "Two recitals a year."]))[0]!.code).toBe("611610")
    expect(top(company("Southpaw Club", "A boxing gym: heavy bags, ring time and coached classes.",
      ["Open gym from 6 a.m.", "Monthly memberships, no contract."]))[0]!.code).toBe("713940")
    expect(top(company("Pine Hollow Farm", "Choose and cut Christmas trees: Fraser firs and Douglas firs.",
      ["Bring a saw or borrow ours; we shake and bale your tree.", "Open weekends from Thanksgiving."]))[0]!.code).toBe("111421")
  })

  it("knows an accredited testing lab, a coworking space, a commercial insurance broker and a third-party apartment manager", () => {
    expect(top(company("Veritas Labs", "An ISO 17025 accredited lab: submit samples for food and water analysis.",
      ["Certificates of analysis within 48 hours.", "Microbiology and heavy metals run by our chemists."]))[0]!.code).toBe("541380")
    expect(top(company("Commons Desk", "Coworking with hot desks, dedicated desks and private offices downtown.",
      ["Hot desk $199/month, private office from $900/month.", "Book meeting rooms in the member app."]))[0]!.code).toBe("531120")
    expect(top(company("Harbor Point Risk", "An independent broker: we shop your coverage across 30 carriers.",
      ["Property, liability and cyber for mid-size companies.", "Claims advocacy when a loss happens."]))[0]!.code).toBe("524210")
    expect(top(company("Crestline Residential", "Third-party management of apartment communities for owners and investors.",
      ["We lease units, collect rent and oversee maintenance.", "Residents pay rent and request repairs online."]))[0]!.code).toBe("531311")
  })

  it("reads a service people perform, sold in monthly plans with an app, as that service, not software", () => {
    const books = top(company("Tallyhand – Bookkeeping plans for small business", "A real bookkeeper closes your books every month. Plans from $299/month.",
      ["Your named bookkeeper reconciles your accounts; reports land in the app and your dashboard.", "Start a free trial or book a demo. Log in to see your reports."]))
    expect(books[0]!.code).toBe("541219")
    const phones = top(company("Pickup – Live receptionists", "Live receptionists answer your calls 24/7. From $249/month.",
      ["Real people greet your callers, take messages and book appointments.", "Read messages in the app; free trial, log in any time."]))
    expect(phones[0]!.code).toBe("561421")
  })

  it("knows a water well driller, a small water company, a taxidermist and a trout hatchery in their own words", () => {
    expect(top(company("Deepstone Drilling", "Water well drilling for homes and farms.",
      ["New wells drilled, cased and fitted with a submersible pump.", "Well rehab and pump replacement."]))[0]!.code).toBe("237110")
    expect(top(company("Cedar Flats Water Company", "Your water company since 1931.",
      ["Pay my water bill online.", "Our consumer confidence report and water rates are posted at the office."]))[0]!.code).toBe("221310")
    expect(top(company("Antler Ridge Studio", "Taxidermy for hunters and anglers.",
      ["Whitetail shoulder mount and fish mounts.", "Every taxidermist's mount is done by hand."]))[0]!.code).toBe("711510")
    expect(top(company("Clearbrook Trout", "Live trout for pond stocking.",
      ["Fingerlings raised in spring-fed raceways.", "Stocking fish delivered by tank truck."]))[0]!.code).toBe("112511")
  })

  it("knows narrow trades by their jargon: a franchisor, a manufacturers' rep agency, contract dining, a county treasurer, an air district, a gas company", () => {
    const first = (title: string, description: string, paragraphs: ReadonlyArray<string>) => top(company(title, description, paragraphs))[0]!.code
    expect(first("Speedy Lube Franchising", "Own a franchise of our 10-minute oil change brand.",
      ["Franchise fee of $30,000 and a 5% royalty; request the franchise disclosure document (FDD).", "300 franchised units in 20 states."])).toBe("533110")
    expect(first("Northline Sales Agency", "A rep agency for commercial lighting lines since 1985.",
      ["Our principals ship straight from the factory; we are paid on commission by the manufacturers.", "New principals welcome."])).toBe("425120")
    expect(first("Tablewise", "Managed dining for employers and hospitals.",
      ["We run employee cafés and hospital cafeterias on contract, with a chef manager at every account."])).toBe("722310")
    expect(first("Marion County Treasurer", "Pay property tax online and see your property tax bill.",
      ["Delinquent taxes are offered at the tax lien sale each fall."])).toBe("921130")
    expect(first("North Basin Air District", "Burn day status and permits to operate for the air basin.",
      ["Inspectors issue notices of violation for smoke and dust."])).toBe("924110")
    expect(first("Millbrook Gas Company", "Your local gas company. Smell gas? Leave and call us.",
      ["Rates per therm and the purchased gas adjustment are set by the commission.", "We replace old gas mains and set your gas meter."])).toBe("221210")
  })

  it("has everyday example phrases for every code but some makers', and reads trades that had none (a cobbler, a cemetery, wheelchair van rides)", () => {
    // A maker's phrase names the making: 63 makers' codes whose only phrases were product names (their sellers' words
    // too) have none.
    const without = Naics.industries().filter((industry) => industry.examples.length === 0).map((industry) => industry.code)
    expect(without.filter((code) => !/^3[1-3]/.test(code))).toEqual([])
    expect(without.length).toBeLessThanOrEqual(63)
    // No phrase is given to two codes (each would count half, and the pair would stand together at the top).
    const owners = new Map<string, Set<string>>()
    for (const industry of Naics.industries()) for (const phrase of industry.examples) owners.set(phrase, (owners.get(phrase) ?? new Set()).add(industry.code))
    expect([...owners].filter(([, codes]) => codes.size > 1).map(([phrase, codes]) => [phrase, [...codes]])).toEqual([])
    expect(top(company("Heel & Sole", "Cobbler on Main Street: resoling, heels, stitching and boot repair.",
      ["Most shoes back in a week.", "We also fix handbags and belts."]))[0]!.code).toBe("811430")
    expect(top(company("Oak Lawn Memorial Park", "Burial plots, a mausoleum and a columbarium on 80 quiet acres.",
      ["Pre-need planning with our family counselors.", "Perpetual care of every grave."]))[0]!.code).toBe("812220")
    expect(top(company("CareRide", "Wheelchair van rides to dialysis and doctor visits, billed to Medicaid.",
      ["Door-through-door help from trained drivers.", "Book 48 hours ahead."]))[0]!.code).toBe("485991")
  })

  it("knows the everyday words of trades whose official titles sites never use (grounds crews, cold chains, newscasts, machine tool dealers)", () => {
    const first = (title: string, description: string, paragraphs: ReadonlyArray<string>) => top(company(title, description, paragraphs))[0]!.code
    const within = (title: string, description: string, paragraphs: ReadonlyArray<string>) => top(company(title, description, paragraphs)).map((r) => r.code)
    expect(first("Evergreen Site Care", "Commercial mowing and grounds maintenance for apartment communities.",
      ["Crews handle mowing and edging, mulching and hedge pruning every week from April to November."])).toBe("561730")
    expect(first("Frostline Logistics", "Refrigerated trucking across the Southeast.",
      ["Temperature-controlled truckload service for dairy and frozen food shippers; every reefer is tracked."])).toBe("484230")
    expect(first("Harborside Cold Storage", "A cold storage warehouse with blast freezing next to the fish pier.",
      ["Pallets of seafood are frozen overnight and held in our frozen warehouse until they ship."])).toBe("493120")
    expect(first("WKVA 12", "Local news, weather and traffic for the valley.",
      ["Watch our evening newscast at 6 and the late newscast at 11 on channel 12."])).toBe("516120")
    expect(first("Rosemont Pharma", "Sterile injectables for hospital pharmacies.",
      ["Our plant fills generic drugs into vials and prefilled syringes for hospitals."])).toBe("325412")
    expect(first("Lindqvist Dental", "Dental checkups, fillings and root canals for the family.",
      ["New dental patients are seen within the week; we also offer teeth whitening and crowns."])).toBe("621210")
    expect(first("Route 9 Auto Care", "Check engine diagnostics, brakes and alignments for every make.",
      ["Drop off your car in the morning; our mechanics call you before any repair."])).toBe("811111")
    expect(within("Great Lakes Machine Tool Sales", "Machine tool dealer for CNC machines and machining centers.",
      ["Authorized distributor of three builders' lathes and mills, with applications engineers and parts."])).toContain("423830")
  })

  it("reads a freight broker that owns no trucks as arranging freight, while a carrier with its own trucks stays a carrier", () => {
    const broker = top(company("Bluestem Freight | Truckload, LTL and Flatbed", "Truckload, LTL and flatbed capacity on every lane, from our network of 15,000 vetted carriers.",
      ["Get a truckload or LTL rate in minutes and track every load.", "Bluestem owns no trucks: we arrange freight for shippers and pay our carriers in 48 hours.",
        "For carriers: quick pay, steady lanes."]))
    expect(broker[0]!.code).toBe("488510")
    const carrier = top(company("Pruett Transport", "Truckload carrier with 240 company tractors and 53-foot dry vans, long haul across the lower 48.",
      ["Our drivers run our own equipment: late-model tractors with home time every weekend.", "Request a truckload quote."]))
    expect(carrier[0]!.code).toBe("484121")
  })

  it("reads vehicles hired with their drivers as transport, not the rental of a vehicle", () => {
    const ranked = top(company("Redline Coach Lines", "Coach and minibus hire with professional drivers for school trips, teams and wedding parties.",
      ["Our 35 coaches seat 25 to 57 passengers.", "Get a charter quote for your group."]))
    expect(ranked[0]!.code).toBe("485510")
    expect(ranked[0]!.code.slice(0, 4)).not.toBe("5321")
  })

  it("knows the words of debt collection and of outsourced customer support", () => {
    const collector = top(company("Harborview Recovery Services", "Past-due medical and utility accounts recovered on contingency by FDCPA-trained collectors.",
      ["No recovery, no fee.", "Consumers: pay your balance online."]))
    expect(collector[0]!.code).toBe("561440")
    const contact = top(company("Tallgrass CX", "Outsourced customer support by phone, chat and email for retailers and utilities, 24/7.",
      ["900 agents in two centers answer as your brand.", "Inbound customer support and order taking."]))
    expect(contact[0]!.code).toBe("561422")
  })

  it("reads a store that prices feed and fence posts as a farm store, not a ranch", () => {
    const ranked = top(company("Cedar Creek Farm Supply", "Feed, fence posts, stock tanks and fly spray for farms, ranches and backyard flocks.",
      ["Horse feed, 50 lb — $21.99", "Steel T-post, 7 ft — $6.29", "Chick starter, 25 lb — $13.49", "Open Monday to Saturday."]))
    expect(ranked[0]!.code).toBe("444240")
    expect(ranked[0]!.code.slice(0, 2)).not.toBe("11")
  })

  it("reads a supplier selling on account to businesses as a wholesaler, goods with no shop of their own included", () => {
    const stationer = top(company("Metro Business Supply", "Toner, copy paper and breakroom supplies delivered next day to offices and schools.",
      ["Business accounts only: invoiced monthly at contract pricing.", "We have no retail store; orders ship from our warehouse."]))
    expect(stationer[0]!.code).toBe("424120")
    const parts = top(company("Midstate Bearing Supply", "Bearings, gearboxes, sprockets and V-belts for plant maintenance, in stock at 6 branches.",
      ["Stocked from 250 manufacturers.", "Open an account for next-day delivery."]))
    expect(parts[0]!.code).toBe("423840")
  })

  it("reads a bakery that bakes for grocers and foodservice as a wholesale bakery, and one with a wholesale page as a retail bakery", () => {
    const plant = top(company("Hearthstone Baking Co.", "Sandwich bread, rolls and bagels for foodservice and grocery chains.",
      ["Our production lines bake 60,000 loaves overnight and our route drivers stock the shelves at 400 stores.", "We sell to grocers and distributors."]))
    expect(plant[0]!.code).toBe("311812")
    const shop = top(company("Little Oven Bakery", "Sourdough, croissants and birthday cakes baked on site every morning.",
      ["Our bakers start at 4 am.", "Wholesale: we also bake bread for a few cafés."]))
    expect(shop[0]!.code).toBe("311811")
  })

  it("reads a winery selling its own bottles online as a winery, not a wine shop", () => {
    const ranked = top(company("Foxglove Hill", "Pinot noir and chardonnay from our hillside, picked, crushed and bottled by our family.",
      ["2022 Pinot Noir — $38", "2023 Chardonnay — $29", "Add to cart. Free shipping on six bottles. Shop now or join the wine club."]))
    expect(ranked[0]!.code).toBe("312130")
    expect(ranked.slice(0, 5).map((r) => r.code)).toContain("445320")
  })

  it("knows cargo airlines, bike couriers, document shredding and travel advisors", () => {
    expect(top(company("Meridian Air Freight", "Cargo flights on a weekly timetable with our fleet of freighters.", ["Book cargo between Anchorage and Asia."]))[0]!.code)
      .toBe("481112")
    expect(top(company("Pedal Post", "Bike couriers carrying letters and parcels across town in under two hours.", ["Rush delivery for law firms."]))[0]!.code)
      .toBe("492210")
    expect(top(company("Shred Point", "Secure document shredding at your office, with a certificate of destruction.", ["Locked bins emptied monthly."]))[0]!.code)
      .toBe("561990")
    expect(top(company("Blue Horizon Journeys", "Travel advisors who plan honeymoons and book cruises and resort stays.", ["We are paid by the cruise lines and resorts."]))[0]!.code)
      .toBe("561510")
  })

  it("reads a maker that designs and builds in its own named factory as a maker", () => {
    const ranked = top(company("Switchback Cycles – Steel Bikes Built in Oregon", "We design and build steel gravel bikes and e-bikes in our Portland factory, sold direct.",
      ["Frames brazed and painted in Portland.", "Find a test ride near you."]))
    expect(ranked[0]!.code).toBe("336991")
  })

  it("reads foundations that engineers design as engineering, not a grantmaking foundation", () => {
    const ranked = top(company("Bedrock Geotechnical", "Soil borings, foundation recommendations and slope stability studies for builders and towns.",
      ["Foundation design: footings or piles chosen from the soil samples our rigs collect.", "Reports sealed by a licensed PE."]))
    expect(ranked[0]!.code).toBe("541330")
    expect(ranked[0]!.code).not.toBe("813211")
  })

  it("reads a greenhouse that grows for garden centres as a grower, and a maker's grocery outlets and its plant as no grocer or nursery", () => {
    const grower = top(company("Sunbeam Greenhouses", "Annuals, hanging baskets and poinsettias grown under glass for garden centers and grocers.",
      ["We seed, transplant and grow every crop on 9 acres under glass.", "Wholesale only: shipped by the rack; no retail store."]))
    expect(grower[0]!.code).toBe("111422")
    const maker = top(company("Birchbark Gelato", "Gelato made in small batches and sold in 250 grocery stores across New England.",
      ["We pasteurize, churn and pack every pint in our plant in Maine.", "Find us at your local grocery store."]))
    expect(maker[0]!.code).toBe("311520")
    expect(maker.map((r) => r.code)).not.toContain("111421")
  })

  it("knows yellow buses, container drayage, job-shop machining and dry cleaning", () => {
    expect(top(company("Lakeside Student Transportation", "Yellow buses and drivers for six school districts.", ["Routes, field trips and athletics."]))[0]!.code)
      .toBe("485410")
    expect(top(company("Gateway Drayage", "Container drayage between the port terminals and inland warehouses.", ["Own trucks and chassis pool."]))[0]!.code)
      .toBe("484110")
    expect(top(company("Northstar Machine", "CNC milling and turning of precision parts to your drawings.", ["A job shop for prototypes and production runs."]))[0]!.code)
      .toBe("332710")
    expect(top(company("Crisp Cleaners", "Dry cleaning, shirt laundry and alterations with pickup and delivery.", ["Shirts laundered and pressed."]))[0]!.code)
      .toBe("812320")
  })

  it("reads goods priced by the hour or the day as rented, not sold", () => {
    const ranked = top(company("Riverside Bike & Kayak", "Bikes, kayaks and paddleboards for the river trail.",
      ["Cruiser bike, 2 hours — $20", "Tandem kayak, half day — $60", "Paddleboard, full day — $75", "Helmets and life jackets included."]))
    expect(ranked[0]!.code).toBe("532284")
    expect(ranked[0]!.code.slice(0, 2)).not.toBe("45")
  })

  it("knows bowling lanes, CPAs and managed IT", () => {
    expect(top(company("Kingpin Lanes", "24 lanes of bowling with leagues, cosmic bowling and an arcade.", ["Open bowling every night."]))[0]!.code)
      .toBe("713950")
    expect(top(company("Okafor & Webb CPAs", "Audits and reviews, business and personal taxes.", ["Our partners are licensed CPAs."]))[0]!.code)
      .toBe("541211")
    expect(top(company("Bluepeak", "Managed IT for small offices.", ["Help desk, Microsoft 365 and network support on a monthly contract."]))[0]!.code)
      .toBe("541512")
  })

  it("knows trades by the words their own sites use: radio, water utilities, aquariums, trash haulers, ad agencies", () => {
    const first = (title: string, description: string, paragraphs: ReadonlyArray<string>) => top(company(title, description, paragraphs))[0]!.code
    // Each was ranked below a look-alike before: a newspaper ("local news"), bottled water, animal farming, scrap
    // recycling, media buying.
    expect(first("KZLX 104.3 – Today's Country", "Today's best country, the morning show and high school football for the valley.",
      ["Listen live on our app.", "Reach 50,000 listeners a week with your ad."])).toBe("516110")
    expect(first("Pine Hollow Water Co.", "Clean drinking water for 12,000 homes and businesses since 1911.",
      ["Read our water quality report.", "We are replacing old water mains on Elm Street this summer."])).toBe("221310")
    expect(first("Bayfront Aquarium", "Sharks, penguins and thousands of animals from the reef and the open ocean.",
      ["Walk through the shark tunnel and meet our rescued sea otters.", "Adult admission $29.95."])).toBe("712130")
    expect(first("Curbside Crew", "Trash and recycling pickup for homes and businesses.", ["Front-load containers for restaurants.", "Check your route day."]))
      .toBe("562111")
    expect(first("Northwind Creative", "A creative shop for brands that want to be remembered.",
      ["We write the campaigns, shoot TV and social spots and buy the media."])).toBe("541810")
  })

  it("reads a farm-machinery distributor as one (not the hay its machines bale) and a grill with table service as a restaurant", () => {
    const dealer = top(company("Prairie Implement Supply", "Distributor of tractors and planters, hay equipment and parts to dealers across Kansas.",
      ["Farm equipment parts shipped the same day from our warehouse."]))
    expect(dealer[0]!.code).toBe("423820")
    expect(dealer[0]!.code).not.toBe("111940")
    const grill = top(company("Ember Grill House", "Steaks from the wood-fired grill and a long wine list, served at the table.",
      ["Reservations for dinner Tuesday to Sunday.", "Private dining for 20."]))
    expect(grill[0]!.code).toBe("722511")
    expect(grill.map((r) => r.code)).toContain("722514")
  })

  it("reads a maker naming its plant with a two-word place as making what it sells through dealers", () => {
    const evidence = company("Plainsman Trailers", "Flatbed and dump trailers for contractors and farms.",
      ["Every trailer is welded in our Sioux Falls plant.", "Sold through 40 dealers; find a dealer near you."])
    expect(modelOf(evidence).making).toBeGreaterThanOrEqual(2)
    expect(top(evidence)[0]!.code).toBe("336212")
  })

  it("does not read a school whose site looks like a software product as a software publisher", () => {
    const evidence = company("Bytewise Academy – Learn to Code", "Live online classes in web development for career changers.",
      ["Tuition $12,000, with small cohorts taught by working engineers.", "Log in to the student dashboard; our graduates join the alumni platform.",
        "Apply for the 14-week course. Free trial class."])
    expect(modelOf(evidence).software).toBeGreaterThanOrEqual(4)
    const ranked = top(evidence)
    expect(ranked[0]!.code).not.toBe("513210")
    expect(ranked[0]!.confidence).not.toBe("high")
    expect(ranked.map((r) => r.code).some((c) => c.startsWith("611"))).toBe(true)
  })

  it("uses schema.org business types and ranks all codes with honest confidence", () => {
    const clinic = top(company("Elm Street Smiles", "Cleanings, fillings and crowns for the whole family.", ["Book online."], "Dentist"))
    expect(clinic[0]!.code).toBe("621210")
    expect(clinic).toHaveLength(5)
    expect(clinic.every((r, i) => i === 0 || r.score <= clinic[i - 1]!.score)).toBe(true)
    const vague = top(company("Welcome", "Welcome to our website.", ["Lorem ipsum dolor sit amet."]))
    expect(vague[0]!.confidence).toBe("low")
  })

  it("lets an optional re-ranker reorder the candidates, ignoring codes it invents", async () => {
    const evidence = company("Stonecut Brewing Co.", "Craft brewery and taproom.", ["We brew beer."])
    const defaults = NaicsClassifier.classify(evidence, { maxResults: 10 })
    const second = defaults[1]!.code
    const reranker = Layer.succeed(NaicsClassifier.NaicsReranker, { rerank: () => Effect.succeed(["999999", second]) })
    const ranked = await Effect.runPromise(NaicsClassifier.classifyEffect(evidence, { maxResults: 3 }).pipe(Effect.provide(reranker)))
    expect(ranked.map((r) => r.code)).toEqual([second, defaults[0]!.code, defaults[2]!.code])
    const plain = await Effect.runPromise(NaicsClassifier.classifyEffect(evidence, { maxResults: 3 }))
    expect(plain.map((r) => r.code)).toEqual(defaults.slice(0, 3).map((r) => r.code))
  })
})

describe("NaicsClassifier.layerOpenAiReranker", () => {
  it("asks an OpenAI-compatible endpoint and keeps the default order when it fails", async () => {
    const { createServer } = await import("node:http")
    const bodies: Array<{ model: string; messages: Array<{ content: string }> }> = []
    const server = createServer((req, res) => {
      let data = ""
      req.on("data", (c) => (data += c))
      req.on("end", () => {
        bodies.push(JSON.parse(data))
        if (req.headers.authorization !== "Bearer k") return void res.writeHead(401).end()
        res.writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ choices: [{ message: { content: "722410, 312120" } }] }))
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`
    try {
      const evidence = company("Stonecut Brewing Co.", "Craft brewery and taproom.", ["We brew beer and pour it in our bar."])
      const codes = async (apiKey: string) =>
        (await Effect.runPromise(NaicsClassifier.classifyEffect(evidence, { maxResults: 10 }).pipe(
          Effect.provide(NaicsClassifier.layerOpenAiReranker({ baseUrl: base, model: "m", apiKey }))
        ))).map((r) => r.code)
      const reranked = await codes("k")
      expect(reranked.slice(0, 2)).toEqual(["722410", "312120"])
      expect(bodies[0]!.model).toBe("m")
      expect(bodies[0]!.messages[0]!.content).toMatch(/Stonecut Brewing[\s\S]*312120 Breweries/)
      const refused = await codes("wrong")
      expect(refused).toEqual(NaicsClassifier.classify(evidence, { maxResults: 10 }).map((r) => r.code))
    } finally {
      server.close()
    }
  })
})
