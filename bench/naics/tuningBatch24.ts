/** Tuning batch 24: hard-to-read small sites over all twenty sectors (11 brand-led minimal homepages, 8 owner stories, two-trade businesses labelled by their primary trade). Read untuned first (see its commit). */
import type { Company } from "./companies.js"

const c = (company: Company): Company => company

export const tuningBatch24: ReadonlyArray<Company> = [
  // 11 Agriculture
  c({ name: "Pippin Hill Orchard", domain: "pippinhillorchard.test", code: "111331", layout: "story",
    ambiguity: "grows apples and runs a farm stand; most of the crop goes to a packer, the stand sells its own fruit",
    title: "Pippin Hill Orchard | Since 1952", description: "Four generations on the same hill above the Wenatchee, and still picking by hand.",
    h1: "Our family, our hill, our fruit", nav: ["Our Story", "The Stand", "U-Pick Days", "Find Us"],
    sections: [["Grandpa Walt planted the first three hundred trees in 1952", "He was back from Korea with a pickup truck and a loan from the Grange, and people told him the slope was too steep. Seventy years later we tend 140 acres of Honeycrisp, Gala and a few heirloom Pippins nobody else bothers with, and most of what we pick still goes down the hill to the packing house in Cashmere, same as it did for him."], ["The stand came later", "My mother started selling seconds off a card table in 1978. Today the red barn on Route 2 is open September through Thanksgiving with our own fruit, fresh-pressed cider and her hand pies, and it's how most of our neighbors know us. Come say hello, and bring the kids on u-pick Saturdays."]] }),
  c({ name: "Larchwood Land & Timber", domain: "larchwoodtimber.test", code: "113310", layout: "minimal",
    title: "Larchwood Land & Timber", description: "Stewards of the working forest since 1989.",
    h1: "Good woods, well managed", nav: ["Landowners", "Our Crew", "Contact"],
    sections: [["Partners for the long haul", "We work alongside landowners and foresters to keep woodlots healthy and productive for the next generation."], ["Local roots", "Family owned in the Upper Peninsula. Fully insured, SFI trained."]],
    about: "Larchwood Land & Timber is a small, family-run timber harvesting contractor. We fell, skid and buck standing timber on private woodlots and county land with our own feller-buncher, forwarder and processor, then truck the logs to sawmills and the paper mill in Escanaba. We buy stumpage outright or cut on shares, and we follow the forester's marking on every job." }),

  // 21 Mining
  c({ name: "Pettibone Gravel", domain: "pettibonegravel.test", code: "212321", layout: "story",
    ambiguity: "digs and washes its own gravel and also hauls it; the gravel is what is priced and sold",
    title: "Pettibone Gravel — Rock Solid Since '71", description: "A family pit on the Sauk River, serving builders, farmers and road crews in three counties.",
    h1: "Dad started with one loader and a lot of stubbornness", nav: ["Products", "Trucking", "Hours", "Call Us"],
    offers: [["Washed sand (per yard)", "$18"], ["3/4\" washed rock (per yard)", "$26"], ["Class 5 road gravel (per yard)", "$14"], ["Pea rock (per yard)", "$30"]],
    sections: [["It was 1971", "He bought forty acres of river bottom everyone else thought was worthless and started digging. We still pull every yard out of that same ground, wash and screen it on site, and stockpile it by size in the yard off County 12."], ["Nowadays", "Contractors pick up at the scale or we haul with our own three tandems. Homeowners are welcome too — bring a trailer, we'll load you."]] }),
  c({ name: "Osage Lease Services", domain: "osageleaseservices.test", code: "213112", layout: "minimal",
    title: "Osage Lease Services | Oklahoma", description: "Hard work. Honest crews. Safe every day.",
    h1: "Built on the patch", nav: ["Safety", "Careers", "Contact"],
    sections: [["Our people", "Fifty-two hands who grew up in Osage and Pawnee counties and know every lease road by heart."], ["Our promise", "We show up when we say we will, and we leave location cleaner than we found it."]],
    about: "Osage Lease Services provides roustabout crews, pumping-unit repair, flowline and tank battery construction and lease maintenance for oil and gas operators in north-central Oklahoma. We work under master service agreements with independents and majors, bill by the crew-hour, and keep eight pickup-and-trailer crews and two backhoes on call around the clock." }),

  // 22 Utilities
  c({ name: "Pike Hollow Water Company", domain: "pikehollowwater.test", code: "221310", layout: "minimal",
    title: "Pike Hollow Water Company", description: "Serving our community, drop by drop, since 1926.",
    h1: "Here for you, every day", nav: ["Pay My Bill", "Start or Stop Service", "Notices", "Contact"],
    sections: [["Customer first", "Questions about your account? Our office in the village is open weekdays 8 to 4:30."], ["Annual report", "Our latest Consumer Confidence Report is available at the office."]],
    about: "Pike Hollow Water Company pumps groundwater from three wells, treats it at our plant on Mill Road and delivers safe drinking water through 46 miles of main to about 2,400 homes and businesses in Pike Hollow and East Lyme township. We are a small investor-owned company regulated by the state utility commission, and we read every meter monthly." }),

  // 23 Construction
  c({ name: "Kettle Ridge Builders", domain: "kettleridgebuilders.test", code: "236115", alternates: ["236118"], layout: "story",
    ambiguity: "builds new custom homes on the owner's lot and also takes some remodels; new homes are most of the work",
    title: "Kettle Ridge Builders | Crafted in the Kettle Moraine", description: "Thoughtful homes, built one at a time, for families who plan to stay.",
    h1: "I started out swinging a framing hammer", nav: ["Our Homes", "Process", "Testimonials", "Let's Talk"],
    sections: [["That was 1998, in my uncle's crew", "Twelve years of framing other people's houses taught me what I'd do differently, so in 2010 I built one for my own family in Eagle and a neighbor asked me to build his."], ["Today we build six or seven custom homes a year", "Always on our clients' own land around the Kettle Moraine, from the first sketch with the architect through the last walkthrough. Our carpenters are employees, not a rotating cast, and I'm on every site every week. When the calendar allows we take on a kitchen or an addition for past clients too."]] }),
  c({ name: "Lumen & Line", domain: "lumenandline.test", code: "238210", layout: "minimal",
    title: "Lumen & Line", description: "Powering what matters to Boise families and businesses.",
    h1: "Bright ideas, safely delivered", nav: ["Residential", "Commercial", "Reviews", "Book Now"],
    sections: [["Locally owned", "Proudly serving the Treasure Valley since 2014."], ["5-star service", "Upfront pricing, clean job sites and a warranty on every job."]],
    about: "Lumen & Line is a team of licensed electricians. We wire new homes for local builders, upgrade panels and services, install EV chargers, generators and lighting, and troubleshoot anything that trips or flickers in homes, shops and offices around Boise, Meridian and Nampa." }),

  // 31-33 Manufacturing
  c({ name: "Ouzel Coffee Roasters", domain: "ouzelcoffee.test", code: "311920", alternates: ["722515"], layout: "shop",
    ambiguity: "roasts and sells bagged beans online and to cafés, and runs one tasting bar at the roastery; beans are most of the sales",
    title: "Ouzel Coffee Roasters — Small Batch, Big Heart", description: "Roasted in small batches on our 1960s Probat in Missoula, shipped within 48 hours.",
    h1: "Coffee worth slowing down for", nav: ["Shop Coffee", "Subscriptions", "Wholesale", "Visit the Bar"],
    offers: [["Rattlesnake Blend, 12 oz", "$17"], ["Ethiopia Guji natural, 12 oz", "$21"], ["Decaf Colombia, 12 oz", "$18"], ["Subscription, two bags a month", "$32/month"], ["5 lb café bag", "$78"]],
    sections: [["Direct partners", "We buy from the same eight farms year after year and pay well above fair-trade prices."], ["Drop by", "Our little bar at the roastery pours every coffee we sell, Wednesday to Sunday."], ["Wholesale", "Fresh roasted for cafés, restaurants and offices across Montana."]] }),
  c({ name: "Longhand Print Co.", domain: "longhandprint.test", code: "323111", layout: "story",
    ambiguity: "a print shop that also offers design; the priced work is print runs and most customers come to print",
    title: "Longhand Print Co. | Providence, RI", description: "Ink on paper, done with care, for Providence's makers, nonprofits and small businesses.",
    h1: "It began with a secondhand press and a leaky basement", nav: ["Print", "Design Help", "Quote", "Visit"],
    offers: [["500 business cards, 16 pt, full colour", "$65"], ["1,000 tri-fold brochures", "$340"], ["100 letterpress wedding invitations", "from $420"], ["Design help, per hour", "$75"]],
    sections: [["My wife and I bought a Heidelberg Windmill in 2006", "Mostly because we loved it. Friends asked for wedding invitations, then the coffee shop down the street asked for menus, and within a year the basement was too small."], ["Now we're on Wickenden Street", "Two digital presses, the old Windmill and a guillotine cutter turn out cards, brochures, posters, menus and invitations for hundreds of local customers. If you don't have artwork, our designer can lay it out for you, but most folks walk in with a file and walk out with boxes."]] }),
  c({ name: "Otterslide Brewing", domain: "otterslidebrewing.test", code: "312120", alternates: ["722410"], layout: "menu",
    ambiguity: "brews beer sold in cans to stores and kegs to bars, and pours it in its own taproom; the taproom menu is the only priced page",
    title: "Otterslide Brewing | Taproom & Cans, Marquette", description: "Small-batch beer made on the shores of Lake Superior, poured where it's made and canned for your cooler.",
    h1: "Come in, sit down, have one with us", nav: ["On Tap", "Where to Buy", "Events", "Visit"],
    offers: [["Slide Rock Lager, pint", "$6"], ["Ore Dock Hazy IPA, pint", "$7"], ["Superior Stout, 10 oz", "$6"], ["Flight of four", "$10"], ["Crowler to go", "$14"], ["4-pack of cans", "$13"]],
    sections: [["Brewed here", "Our ten-barrel brewhouse turns out about 2,500 barrels a year. Most of it leaves in cans and kegs for stores and bars across the Upper Peninsula."], ["Find us on the shelf", "Look for our cans at grocers and party stores from Ironwood to the Soo."]] }),

  // 42 Wholesale
  c({ name: "Pemberton Foods", domain: "pembertonfoods.test", code: "424410", layout: "corporate",
    title: "Pemberton Foods | Feeding the Carolinas Since 1948", description: "Your partner in the kitchen: 11,000 products, delivered on our own trucks, six days a week.",
    h1: "Partners to the people who feed the Carolinas", nav: ["Our Company", "Customers", "Investors", "Careers", "News"],
    sections: [["Who we serve", "Independent restaurants, schools, hospitals and nursing homes across both Carolinas rely on our 140 trucks for canned goods, frozen foods, dry goods, dairy and disposables."], ["Our warehouses", "Three distribution centers in Charlotte, Columbia and Greenville, 620,000 square feet of dry, cooler and freezer space."], ["Investors", "Pemberton Foods is employee-owned. Our annual report is available to member-owners."]] }),
  c({ name: "Jasper & Vine", domain: "jaspervine.test", code: "424820", layout: "minimal",
    title: "Jasper & Vine", description: "Honest bottles from the Iberian hillsides.",
    h1: "Small growers. Big stories.", nav: ["Our Growers", "Trade Portal", "Contact"],
    sections: [["Curated, not collected", "Every family we work with has been visited, walked and tasted with, often more than once."], ["For the trade", "Our portfolio book is available to licensed accounts."]],
    about: "Jasper & Vine imports wine from about thirty small producers in Portugal and Spain and sells it to restaurants, wine bars and bottle shops in New York, New Jersey and Connecticut. We hold a federal importer's permit and a state wholesale license, keep our stock in a bonded warehouse in Secaucus, and do not sell to the public." }),

  // 44-45 Retail
  c({ name: "Ozark Spoke", domain: "ozarkspoke.test", code: "459110", alternates: ["811490"], layout: "shop",
    ambiguity: "sells bikes and gear and runs a repair bench; bikes are what is mostly priced and sold",
    title: "Ozark Spoke — Bikes, Gear & Good Advice | Bentonville", description: "Ride more. Ride better. Trail and road bikes, gear, and a service bench that gets you back out fast.",
    h1: "Your trailhead starts here", nav: ["Bikes", "Gear", "Service", "Group Rides"],
    offers: [["Trek Marlin 7 hardtail", "$1,129"], ["Specialized Stumpjumper Comp", "$4,200"], ["Giro Fixture helmet", "$65"], ["Tubeless setup kit", "$48"], ["Standard tune-up", "$89"]],
    sections: [["Community first", "Thursday night shop rides leave at 6 for the Slaughter Pen trails. All paces welcome."], ["Fast service", "Most tune-ups done in 48 hours by our certified mechanics."]] }),
  c({ name: "Marigold & Moss", domain: "marigoldandmoss.test", code: "459420", layout: "minimal",
    title: "Marigold & Moss", description: "Little joys, thoughtfully chosen.",
    h1: "Something for everyone you love", nav: ["Visit", "Makers", "Gift Cards"],
    sections: [["Shop local", "Over 60 makers from across the Ozarks and beyond."], ["Find us", "On the square in Eureka Springs, open seven days."]],
    about: "Marigold & Moss is a small shop on the square in Eureka Springs selling gifts: candles, greeting cards, local pottery, jewelry, baby gifts, kitchen towels and Arkansas-made souvenirs. We've been open since 2016, and most of what we sell is made by artists within a few hours' drive." }),

  // 48-49 Transportation and warehousing
  c({ name: "Oakes Brothers Moving", domain: "oakesbrothersmoving.test", code: "484210", layout: "story",
    ambiguity: "moves households and offers storage between moves; moving is what is priced and what most customers buy",
    title: "Oakes Brothers Moving | Family-Owned in Dayton", description: "Two brothers, one truck, and a promise to treat your things like our mother's china.",
    h1: "Tom and I started with a borrowed box truck in 2003", nav: ["Get an Estimate", "Storage", "Reviews", "Contact"],
    offers: [["Two movers and a truck, per hour", "$139"], ["Three movers and a truck, per hour", "$179"], ["Storage vault, per month", "$85"]],
    sections: [["Back then it was college kids and apartments", "Then their parents called us when they downsized, and word of mouth did the rest."], ["Today we run nine trucks", "Our crews move homes and apartments across the Miami Valley and long-distance anywhere in Ohio and Indiana. If your dates don't line up we'll keep your things in our warehouse in wooden vaults until the new place is ready."]] }),
  c({ name: "Milepost Logistics", domain: "milepostlogistics.test", code: "488510", layout: "minimal",
    title: "Milepost Logistics", description: "Solutions that keep your business moving.",
    h1: "We go the extra mile", nav: ["Shippers", "Carriers", "Careers", "Get a Quote"],
    sections: [["People, not portals", "One point of contact who answers the phone, day or night."], ["Trusted partners", "A vetted network of over 9,000 partners coast to coast."]],
    about: "Milepost Logistics is a licensed freight broker in Columbus, Ohio. We don't own trucks: shippers give us their truckload and LTL freight and we find, book and track a vetted carrier for each load, pay the carrier and invoice the shipper. Most of our customers are manufacturers and food companies in the Midwest." }),

  // 51 Information
  c({ name: "Plotkeep", domain: "plotkeep.test", code: "513210", alternates: ["541511"], layout: "saas",
    ambiguity: "a subscription software product for cemeteries",
    title: "Plotkeep — Cemetery Records & Mapping in the Cloud", description: "Retire the ledger books. Map every plot, track every interment and sell spaces online.",
    h1: "Every story, in its place", nav: ["Features", "Pricing", "Customers", "Log in"],
    offers: [["Parish", "$29/month"], ["Municipal", "$99/month"], ["Memorial Park", "$249/month"]],
    sections: [["Interactive maps", "Upload your survey and click any plot to see owners, interments and open spaces."], ["Genealogy search", "A public search page families can use to find loved ones."], ["Migration included", "We scan and import your old record books."]] }),
  c({ name: "Loon Lake Gazette", domain: "loonlakegazette.test", code: "513110", layout: "minimal",
    title: "Loon Lake Gazette", description: "Your town. Your stories. Every Thursday since 1911.",
    h1: "Community matters", nav: ["Subscribe", "Obituaries", "Advertise", "Contact"],
    sections: [["Local voices", "Letters, church news and the school honor roll, straight from our neighbors."], ["Support local", "Subscribers keep this community's story going."]],
    about: "The Loon Lake Gazette is the weekly paper for Loon Lake and the surrounding towns in Vilas County. Our three reporters cover village board meetings, schools, sports and obituaries; we print about 4,800 copies each Thursday, mail them to subscribers and sell them at local stores, and post stories online for digital subscribers. Local ads and legal notices pay most of the bills." }),

  // 52 Finance and insurance
  c({ name: "Pillar & Post", domain: "pillarandpost.test", code: "524210", layout: "minimal",
    title: "Pillar & Post", description: "Protecting what you've built.",
    h1: "Peace of mind, close to home", nav: ["Personal", "Business", "Claims Help", "Get a Quote"],
    sections: [["We shop, you save", "One conversation, many options."], ["Neighbors since 1984", "Three offices in Knox and Blount counties."]],
    about: "Pillar & Post is an independent agency in East Tennessee. We represent more than twenty insurance carriers and shop them for our clients' home, auto, farm and small-business policies, then stay with you at renewal and help when you file a claim. We're paid by commission from the carrier, so our advice costs you nothing." }),

  // 53 Real estate
  c({ name: "Oriel Residential", domain: "orielresidential.test", code: "531311", layout: "minimal",
    title: "Oriel Residential", description: "Where owners and residents both feel at home.",
    h1: "Elevating the rental experience", nav: ["Owners", "Residents", "Available Homes", "Pay Rent"],
    sections: [["Owners", "Transparent reporting and a team that treats your investment like our own."], ["Residents", "24/7 maintenance requests and easy online payments."]],
    about: "Oriel Residential manages about 650 rental houses, duplexes and small apartment buildings in Tacoma and Lakewood for individual owners. We advertise and show vacancies, screen tenants, sign leases, collect rent, handle repairs through our maintenance team and send each owner a monthly statement, for a fee of 8% of collected rent. We don't own the properties ourselves." }),

  // 54 Professional services
  c({ name: "Inglenook Animal Clinic", domain: "inglenookvet.test", code: "541940", layout: "story",
    ambiguity: "an animal clinic that also boards pets; exams, surgery and dentistry are most of the visits",
    title: "Inglenook Animal Clinic | Asheville", description: "Caring for the pets of West Asheville like they're our own, since 2011.",
    h1: "I opened these doors with one exam room and my dog Pepper", nav: ["New Clients", "Our Team", "Boarding", "Request an Appointment"],
    offers: [["Wellness exam", "$65"], ["Dental cleaning", "from $340"], ["Boarding, per night", "$38"]],
    sections: [["After eight years at an emergency hospital", "I wanted to know my patients from their first puppy shots to their last gray-muzzled days. Dr. Okafor joined me in 2015, and we now have three veterinarians and a surgery suite."], ["Most days it's vaccines, sick visits, surgery and teeth", "Our clients asked us for a safe place to leave their pets when they travel, so we also board cats and dogs in the back kennel, under the eye of our nurses."]] }),
  c({ name: "Inkling Books", domain: "inklingbooks.test", code: "541219", layout: "saas",
    ambiguity: "plan-priced bookkeeping done by people, with an app, not a software product",
    title: "Inkling Books — Bookkeeping Plans for Small Business", description: "A real bookkeeper, monthly books and clean reports, for one flat price.",
    h1: "Never think about your books again", nav: ["How It Works", "Plans", "Who We Help", "Log in"],
    offers: [["Starter", "$199/month"], ["Growth", "$349/month"], ["Catch-up", "$500 one-time"]],
    sections: [["Your own bookkeeper", "A named bookkeeper reconciles your accounts and closes your books every month."], ["Reports you understand", "Profit and loss, balance sheet and a 15-minute call to walk through them."], ["Tax-ready", "We hand year-end books to your CPA."]] }),

  // 55 Management of companies
  c({ name: "Orsolya Group", domain: "orsolyagroup.test", code: "551112", layout: "corporate",
    title: "Orsolya Group | Long-Term Owners of Great Businesses", description: "A family-controlled group that buys, holds and grows mid-sized companies in the Great Lakes region.",
    h1: "Patient capital. Enduring companies.", nav: ["Our Companies", "Approach", "Investors", "News", "Contact"],
    sections: [["Our companies", "We own controlling stakes in five businesses: a packaging maker, a trucking firm, two building-supply dealers and an HVAC contractor, together employing 1,900 people."], ["Approach", "Each company keeps its name and its leadership. Our small team in Cleveland sets strategy, appoints boards and allocates capital."], ["Investors", "Shares are held by the Orsolya family and a group of long-term co-investors."]] }),

  // 56 Administrative and support
  c({ name: "Ivorybell Answering", domain: "ivorybell.test", code: "561421", layout: "saas",
    ambiguity: "live people answer clients' phones; priced like a software plan",
    title: "Ivorybell — Live Receptionists for Small Business", description: "Never miss a call. Friendly, US-based receptionists pick up in your company's name, 24/7.",
    h1: "Every call answered by a real person", nav: ["How It Works", "Pricing", "Industries", "Log in"],
    offers: [["Starter: 50 minutes", "$199/month"], ["Pro: 150 minutes", "$449/month"], ["Plus: 300 minutes", "$799/month"]],
    sections: [["Live receptionists", "Our team in Spokane greets callers, takes messages, books appointments and transfers hot leads."], ["After hours", "Overnight and weekend calls handled for law offices, HVAC companies and clinics."], ["App", "Read messages and change your greeting from your phone."]] }),

  // 61 Education
  c({ name: "Juneberry School of Music", domain: "juneberrymusic.test", code: "611610", layout: "story",
    ambiguity: "lessons plus instrument rentals; lessons are what most families pay for",
    title: "Juneberry School of Music | Fargo", description: "Where Fargo learns to play: piano, strings, guitar and voice for ages four to ninety-four.",
    h1: "I taught my first student at my kitchen table", nav: ["Lessons", "Teachers", "Recitals", "Rent an Instrument", "Enroll"],
    offers: [["Weekly 30-minute private lesson, per month", "$120"], ["Weekly 45-minute private lesson, per month", "$170"], ["Student violin rental, per month", "$22"]],
    sections: [["That was 1994", "A neighbor's daughter wanted piano lessons and her mother paid me in rhubarb pie. By 2001 I had forty students and a waiting list, and rented the old bank building on Broadway."], ["Today fourteen teachers", "They give about 400 private lessons a week in piano, violin, cello, guitar and voice, and we hold two recitals a year at the Fargo Theatre. Because so many beginners asked, we also rent student violins and cellos by the month."]] }),

  // 62 Health care and social assistance
  c({ name: "Porchlight Home Care", domain: "porchlighthomecare.test", code: "624120", alternates: ["621610"], layout: "minimal",
    ambiguity: "non-medical help at home for seniors; no nursing, so not home health",
    title: "Porchlight Home Care", description: "Because there's no place like home.",
    h1: "Compassion, right where you live", nav: ["For Families", "Caregivers", "Careers", "Free Consultation"],
    sections: [["Family values", "Locally owned and operated in Lancaster County."], ["Trusted caregivers", "Background checked, trained and matched with care."]],
    about: "Porchlight Home Care sends trained caregivers into the homes of older adults and people with disabilities so they can keep living independently. Our caregivers help with bathing, dressing, meals, light housekeeping, errands and companionship, from a few hours a week to around the clock. We do not provide nursing or medical care; families pay by the hour, and we accept long-term care insurance and the state waiver program." }),

  // 71 Arts, entertainment and recreation
  c({ name: "Pulse & Grind", domain: "pulseandgrind.test", code: "713940",
    ambiguity: "a gym with a café in the lobby; memberships are the main thing priced and sold",
    title: "Pulse & Grind | Train Hard, Refuel Right — Lincoln, NE", description: "Open 24/7 with strength, cardio and classes, plus a café for your post-workout shake.",
    h1: "Sweat. Sip. Repeat.", nav: ["Memberships", "Classes", "Café", "Free Pass"],
    offers: [["Monthly membership", "$39"], ["Unlimited classes add-on", "$25/month"], ["Personal training, 4 sessions", "$220"], ["Protein smoothie", "$7"], ["Cold brew", "$4"]],
    sections: [["Built for our community", "12,000 square feet of racks, turf and cardio on O Street, open around the clock."], ["Classes", "Spin, HIIT and yoga, 40 classes every week."], ["The café", "Smoothies, cold brew and grab-and-go bowls in the lobby, open to members and neighbors alike."]] }),

  // 72 Accommodation and food services
  c({ name: "Osteria Pinella", domain: "osteriapinella.test", code: "722511", layout: "menu",
    title: "Osteria Pinella | Handmade Pasta in Portland", description: "Seasonal Italian cooking, handmade pasta and natural wine in a 40-seat room on Alberta Street.",
    h1: "Nonna's table, our neighborhood", nav: ["Menu", "Wine", "Private Dining", "Reservations"],
    offers: [["Tagliatelle al ragù", "$24"], ["Cacio e pepe", "$21"], ["Burrata with stone fruit", "$16"], ["Whole roasted branzino", "$36"], ["Tiramisu", "$11"]],
    sections: [["Rooted in craft", "Our pasta is rolled by hand every afternoon by chef Marta and her team."], ["Gather with us", "Dinner Tuesday through Sunday from 5. Our chef's table seats twelve for private dinners."]] }),

  // 81 Other services
  c({ name: "Pruitt's Garage", domain: "pruittsgarage.test", code: "811111", alternates: ["441120"], layout: "story",
    ambiguity: "a repair garage that also sells a handful of used cars; repairs are what most customers come for",
    title: "Pruitt's Garage | Honest Work Since 1986", description: "Third-generation mechanics keeping Hickory on the road, and a few good used cars out front.",
    h1: "My father opened this place in a two-bay Gulf station", nav: ["Services", "Cars for Sale", "Reviews", "Call Us"],
    offers: [["Oil change, synthetic", "$69"], ["Front brake pads and rotors", "from $389"], ["Check engine diagnosis", "$95"], ["2016 Honda CR-V EX, 98k miles", "$14,900"]],
    sections: [["That was 1986", "He'd fix anything with a motor, and he never charged for something he didn't do. Today there are six bays, four ASE-certified techs, and most days the lot is full of brakes, tune-ups, timing belts, AC and inspections for folks we've known for decades."], ["The cars out front", "When a customer trades up we sometimes buy the old car, go through it top to bottom and put it out front for sale. There are usually four or five; ask about them at the counter."]] }),

  // 92 Public administration
  c({ name: "Pine Ridge Soil & Water Conservation District", domain: "pineridgeswcd.test", code: "924120",
    title: "Pine Ridge SWCD | Caring for the Land Together", description: "A local unit of government helping landowners in Pine Ridge County protect soil, water and habitat.",
    h1: "Healthy soil. Clean water. Strong community.", nav: ["Cost-Share Programs", "Tree Sale", "Education", "Board Meetings", "Staff"],
    offers: [["Spring tree sale, bundle of 25 seedlings", "$30"], ["No-till drill rental, per acre", "$12"]],
    sections: [["Cost-share", "We help farmers pay for cover crops, grassed waterways, well sealing and streambank fencing, funded by state and county dollars."], ["Who we are", "An elected five-member board and a staff of four, working alongside the county and the state's Department of Natural Resources."], ["Public meetings", "The board meets the second Tuesday of each month at the courthouse annex. All are welcome."]] })
]
