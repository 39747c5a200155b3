/**
 * Tuning batch 20: local services and retail (81, 56, 72, 71, 62, 61, 44-45, 23, 48-49) in a terse, slangy,
 * owner-written voice, ten vague homepages whose `about` alone says what the company does, and one company in each
 * other sector. Read untuned first (see its commit).
 */
import type { Company } from "./companies.js"

const c = (company: Company): Company => company

/** The batch, in a fixed order. */
export const tuningBatch20: ReadonlyArray<Company> = [
  // 81 Other services
  c({ name: "Fadez by Dre", domain: "fadezbydre.test", code: "812111", alternates: ["812112"], ambiguity: "men's cuts; a salon code is close",
    title: "Fadez by Dre | Cuts, Fades, Lineups", description: "Walk-ins til 7. Skin fades, tapers, beard lineups. Cash or card, no appointment needed most days.",
    h1: "Fresh cut. No wait (usually).", nav: ["Prices", "The Chairs", "Insta", "Hours"],
    sections: [["The chairs", "Three barbers, three chairs. Dre, Kev and Manny. Ask for who you want or grab the next chair open."], ["Kids", "Lil man's first cut? We got him. Lollipop included."], ["Hot towel shave", "Straight razor, hot towel, done in 25. Book it Fridays, it fills up."]] }),
  c({ name: "Bubba's Mobile Detail", domain: "bubbasmobiledetail.test", code: "811192", layout: "minimal",
    title: "Bubba's", description: "We come to you. Driveway, office lot, wherever.",
    h1: "Make it shine", nav: ["Book", "Before/After", "Text Us"],
    sections: [["Saturdays book fast", "Get on the list by Wednesday."], ["Fleet?", "Ask about weekly rates for work trucks."]],
    about: "Bubba's is a one-van auto detailing outfit. I bring my own water and power and do hand wash, clay bar, wax, interior shampoo and ceramic coating on cars, trucks and boats right where they're parked. Been at it since 2016." }),
  c({ name: "Dirty Paws Grooming", domain: "dirtypawsgrooming.test", code: "812910", layout: "menu",
    title: "Dirty Paws Grooming – Baths, Haircuts & Nails for Dogs", description: "Stinky dog? Muddy dog? Bring 'em in. Small shop, no cages all day, done in about 2 hrs.",
    h1: "Dirty in, fluffy out", nav: ["Prices", "First Visit", "Book", "FAQ"],
    sections: [["First visit", "Bring shot records (rabies at least). Nervous pups get extra time, no charge."], ["Cats", "Nope, sorry. Dogs only."]],
    offers: [["Bath & brush, small dog", "$45"], ["Bath & brush, big dog", "$70"], ["Full haircut", "from $65"], ["Nail trim, walk-in", "$15"], ["De-shed treatment", "$25 add-on"]] }),

  // 56 Administrative and support, waste
  c({ name: "Ace High Window Cleaning", domain: "acehighwindows.test", code: "561720", alternates: ["561790"], ambiguity: "window washing for homes and storefronts",
    title: "Ace High Window Cleaning | Streak-Free or It's Free", description: "Inside and out, screens and tracks too. Homes, storefronts, 3 stories max.",
    h1: "Streak-free or we come back", nav: ["Residential", "Storefronts", "Quote", "Reviews"],
    sections: [["Homes", "Most houses take 2-3 hrs. We wipe the sills and take our boots off."], ["Storefronts", "Weekly or every other week, before you open. Set it and forget it."], ["Insured", "Fully insured. Yes we've got ladders, big ones."]] }),
  c({ name: "Bug Off", domain: "bugoffpest.test", code: "561710", layout: "minimal",
    title: "Bug Off", description: "Seen one? There's more. Call us.",
    h1: "We'll handle it", nav: ["Call", "Service Area", "About"],
    sections: [["Same-week visits", "Most calls seen within 3 days."], ["Pet safe", "Ask us how."]],
    about: "Bug Off is a licensed exterminator in the tri-county area. We treat homes and restaurants for roaches, ants, bed bugs, mice and rats, do termite inspections for home sales and offer quarterly spray plans. Owner-operated by Luis Ortega since 2011." }),

  // 72 Accommodation and food services
  c({ name: "Güero's Tacos", domain: "guerostacos.test", code: "722330", layout: "menu",
    title: "Güero's Tacos – Find the Truck", description: "Street tacos off the truck. Tue-Sat, check Insta for where we're parked tonight.",
    h1: "Follow the truck", nav: ["Menu", "Where We At", "Book Us for Events", "Insta"],
    sections: [["Where we at", "Tues/Thurs at the brewery on 5th, Fri-Sat outside Lucky's till 2am."], ["Parties", "Quinceañeras, weddings, office lunch. We pull up, we feed everybody."]],
    offers: [["Al pastor taco", "$3"], ["Carne asada taco", "$3.50"], ["Birria plate w/ consomé", "$13"], ["Elote", "$5"], ["Horchata", "$4"]] }),
  c({ name: "Desert Palms", domain: "desertpalmsinn.test", code: "721110", layout: "minimal",
    title: "Desert Palms", description: "Right off the highway. Cold AC, clean sheets, pool's open.",
    h1: "Pull in, rest up", nav: ["Rates", "Call", "Directions"],
    sections: [["Truckers welcome", "Big rig parking out back."], ["Pets", "$15 a night, dogs under 40 lbs."]],
    about: "Desert Palms is a 22-room family-run motor inn at exit 114. Rooms have two queens or a king, microwave and mini-fridge; free coffee and donuts in the office 6-9am. Nightly and weekly rates, no reservation needed most nights." }),

  // 71 Arts, entertainment, recreation
  c({ name: "Bruiser's", domain: "bruisersboxing.test", code: "713940", layout: "minimal",
    title: "Bruiser's", description: "No mirrors. No smoothie bar. Just work.",
    h1: "Earn it", nav: ["Schedule", "Join", "About"],
    sections: [["First week free", "Just show up at 6."], ["Open 5am", "Till 10pm, every day but Sunday."]],
    about: "Bruiser's is a boxing gym in an old tire warehouse. Members get open gym (heavy bags, speed bags, ring time, weights) plus coached boxing classes every night and a youth program after school. Monthly memberships, no contract." }),
  c({ name: "Gutterball Lanes", domain: "gutterballlanes.test", code: "713950",
    title: "Gutterball Lanes – Cosmic Bowling, Leagues & Parties", description: "24 lanes, cosmic bowling Fri & Sat nights, a bar that pours cheap pitchers. Shoes included Tuesdays.",
    h1: "Roll one with us", nav: ["Open Bowl", "Leagues", "Birthday Parties", "Snack Bar", "Hours"],
    sections: [["Cosmic nights", "Black lights, fog machine, loud music. Fri & Sat 9pm to close."], ["Leagues", "Fall leagues start in September. Singles, doubles, teams of four. Sign-up sheet's at the counter."], ["Birthdays", "2 hrs of bowling, pizza, soda and a party host. Bumpers on request."]] }),

  // 62 Health care and social assistance
  c({ name: "Granny's Angels", domain: "grannysangels.test", code: "624120", alternates: ["621610"], ambiguity: "non-medical in-home care vs home health", layout: "minimal",
    title: "Granny's Angels", description: "Because Mom wants to stay home.",
    h1: "Stay home. We'll help.", nav: ["Call Us", "Join Our Team", "About"],
    sections: [["4-hour minimum", "Days, nights, weekends."], ["Hiring", "Kind people wanted. We train."]],
    about: "Granny's Angels sends caregivers into seniors' homes to help with bathing, dressing, meals, light housekeeping, errands and company. We're not nurses and don't give medical care; we're the extra hands that let older folks keep living at home. Private pay and long-term care insurance accepted." }),
  c({ name: "Back in Line Chiropractic", domain: "backinlinechiro.test", code: "621310",
    title: "Back in Line Chiropractic | Dr. Tessa Moody, DC", description: "Back pain, neck pain, headaches. Adjustments, same-day appts, most insurance taken.",
    h1: "Tweaked your back? Get in today.", nav: ["New Patients", "Services", "Insurance", "Book Online"],
    sections: [["Adjustments", "Gentle or old-school crack, your call. Most visits are 15 minutes."], ["Car accidents", "Whiplash care, we bill the auto claim directly."], ["Walk-ins", "Tuesdays and Thursdays 4-7pm."]] }),

  // 61 Educational services
  c({ name: "Brake Check Driver Ed", domain: "brakecheckdriver.test", code: "611692", layout: "minimal",
    title: "Brake Check", description: "Nervous? Good. Means you care.",
    h1: "Keys, please", nav: ["Sign Up", "Parents", "About"],
    sections: [["Teens & adults", "Ages 15 and up."], ["We pick you up", "From school or home."]],
    about: "Brake Check teaches people to drive. We run the state-approved 30-hour classroom course for teens, behind-the-wheel lessons in dual-brake cars, adult refresher lessons and road-test prep, and we'll bring the car for your test day." }),
  c({ name: "The Chord Shed", domain: "chordshed.test", code: "611610", layout: "story",
    title: "The Chord Shed – Guitar, Bass & Uke Lessons", description: "I'm Jess. I teach guitar out of a converted shed in my backyard. Been playing 25 years, teaching 12.",
    h1: "Learn the songs you actually like", nav: ["Lessons", "Rates", "Recitals", "Contact"],
    sections: [["How it works", "30 or 60 minute lessons, weekly. Kids 8 and up, adults any age, total beginners totally fine"], ["What we play", "Whatever you're into. Punk, country, worship, Taylor Swift, I don't judge"], ["Recitals", "Twice a year at the coffee shop downtown. Optional but you'll love it"]],
    offers: [["30 min weekly", "$120/month"], ["60 min weekly", "$220/month"]] }),

  // 44-45 Retail
  c({ name: "Cloud Nine Vapes", domain: "cloudninevapes.test", code: "459991", layout: "shop",
    title: "Cloud Nine Vapes & Smoke – Juice, Mods, Glass", description: "Local vape & smoke shop. 21+ only, ID checked at the door and at checkout. Pickup in store or ship.",
    h1: "Stocked up. Come through.", nav: ["E-Juice", "Disposables", "Mods & Pods", "Glass", "Cigars", "Store Info"],
    sections: [["21+", "We card everyone. Don't be offended, it's the law."], ["Juice bar", "Try any flavor before you buy, 100+ on tap."]],
    offers: [["Salt nic 30ml – Mango Ice", "$17.99"], ["Disposable 5000 puffs", "$19.99"], ["Pod kit starter", "$29.99"], ["Glass hand pipe", "$14.99"], ["Cigar 5-pack", "$22.00"]] }),
  c({ name: "Cheap Wheels", domain: "cheapwheelsauto.test", code: "441120", layout: "minimal",
    title: "Cheap Wheels", description: "Bad credit? No credit? Come talk to Ray.",
    h1: "Drive off today", nav: ["Inventory", "Get Approved", "About"],
    sections: [["Trade-ins welcome", "Running or not."], ["$500 down", "On approved credit."]],
    about: "Cheap Wheels is a buy-here-pay-here lot on Route 9. We sell pre-owned cars, trucks and SUVs, mostly under $12,000, every one inspected by our mechanic before it goes out front. In-house financing, weekly payments, and we take trade-ins." }),

  // 23 Construction
  c({ name: "Drip Stop Roofing", domain: "dripstoproofing.test", code: "238160",
    title: "Drip Stop Roofing | Roof Repair & Replacement", description: "Leak? We'll be out tomorrow. Shingle, metal and flat roofs. Free estimates, we deal with your insurance.",
    h1: "Leaking? We're on it.", nav: ["Repairs", "New Roofs", "Storm Damage", "Free Estimate"],
    sections: [["Repairs", "Missing shingles, flashing, leaks around the chimney. Most repairs done same day."], ["Tear-offs", "Full tear-off and new roof in 1-2 days. We magnet-sweep your yard for nails."], ["Hail & wind", "Got hit in the storm? We meet the adjuster on your roof."]] }),
  c({ name: "Eddie's", domain: "eddieselectric.test", code: "238210", layout: "minimal",
    title: "Eddie's", description: "Licensed. Insured. Shows up when I say.",
    h1: "Call Eddie", nav: ["Call", "Reviews", "About"],
    sections: [["No job too small", "Seriously. One outlet is fine."], ["Emergency calls", "Nights and weekends, extra fee."]],
    about: "Eddie Kowalski, licensed master electrician. I do panel upgrades, new circuits, EV charger installs, ceiling fans, lighting, generator hookups and troubleshooting for houses and small shops. Pull my own permits." }),

  // 48-49 Transportation and warehousing
  c({ name: "Big Lift Movers", domain: "bigliftmovers.test", code: "484210",
    title: "Big Lift Movers – Local & Long-Distance Moving", description: "Two guys and a truck, or four guys and two trucks. Apartments, houses, offices. Hourly, no hidden fees.",
    h1: "We lift. You relax.", nav: ["Rates", "Packing", "Long Distance", "Get a Quote"],
    sections: [["Local", "2 movers + 26' truck, 3 hr minimum. Blankets and dollies included."], ["Packing", "We bring boxes and pack the kitchen so you don't have to."], ["Pianos", "Yep. Uprights and baby grands."]] }),
  c({ name: "Hook'd", domain: "hookdtowing.test", code: "488410", layout: "minimal",
    title: "Hook'd", description: "Stuck? We're 24/7.",
    h1: "On the way", nav: ["Call Now", "Service Area", "About"],
    sections: [["30 min or less", "Most calls in town."], ["Lockouts too", "And jump starts."]],
    about: "Hook'd runs four flatbeds and a wrecker around the county, 24 hours a day. We tow broken-down and wrecked cars to the shop of your choice, do accident scene cleanup for the police, pull cars out of ditches and handle lockouts, jump starts and flat tires." }),

  // 11 Agriculture
  c({ name: "Hollis Family Firs", domain: "hollisfamilyfirs.test", code: "111421", layout: "story",
    title: "Hollis Family Firs – Cut Your Own Christmas Tree", description: "Fraser and Douglas firs grown on our farm since 1978. Cut your own starting the day after Thanksgiving.",
    h1: "Bring a saw (or borrow ours)", nav: ["Season Hours", "Varieties", "Wholesale", "Directions"],
    sections: [["Our trees", "We plant about 3,000 seedlings every spring and shear every tree by hand in the summer. It takes eight to ten years to grow a 7-footer"], ["Cut your own", "Walk the rows, pick one, we shake it, bale it and tie it to your roof"], ["Wholesale", "We also sell fresh-cut trees by the truckload to lots and garden centers"]] }),

  // 21 Mining
  c({ name: "Brush Creek", domain: "brushcreekaggregates.test", code: "212321", layout: "minimal",
    title: "Brush Creek", description: "Loads out of our own pit since 1962.",
    h1: "By the ton", nav: ["Prices", "Hauling", "About"],
    sections: [["Scale open 6:30", "Mon-Fri, Sat mornings in season."], ["Contractors", "Ask about charge accounts."]],
    about: "Brush Creek digs and screens sand and gravel from our pit on the river terrace: washed concrete sand, pea gravel, fill sand and road base. Contractors and homeowners load out at our scale, or we deliver in our tri-axles." }),

  // 22 Utilities
  c({ name: "Elk Valley Water Co-op", domain: "elkvalleywater.test", code: "221310",
    title: "Elk Valley Water Co-op | Member-Owned Since 1971", description: "Drinking water for 1,900 rural homes and farms in Elk Valley. Pay your bill, report a leak, read our water quality report.",
    h1: "Your water, owned by you", nav: ["Pay My Bill", "Report a Leak", "Water Quality", "New Service", "Board Meetings"],
    sections: [["Where it comes from", "Three deep wells and a 500,000-gallon tower. Chlorinated and tested monthly."], ["Boil notices", "Sign up for text alerts so you hear about main breaks first."], ["New hookups", "Building out here? Apply for a meter and tap early, it takes 6-8 weeks."]] }),

  // 31-33 Manufacturing
  c({ name: "Devil's Porch Hot Sauce", domain: "devilsporch.test", code: "311941", layout: "shop",
    title: "Devil's Porch Hot Sauce – Small Batch, Made in Louisiana", description: "Fermented pepper sauces we cook and bottle ourselves in a little kitchen behind the house. Ships in 2 days.",
    h1: "Hot. Not stupid hot.", nav: ["Shop", "Heat Scale", "Wholesale", "Our Story"],
    sections: [["Fermented 60 days", "Peppers, salt, time. Then we cook it down and bottle it."], ["Stores & restaurants", "Want us on your shelf? Cases of 12 at wholesale price."]],
    offers: [["Porch Light (mild)", "$9"], ["Red Screen Door (medium)", "$10"], ["Ghost on the Swing (hot)", "$12"], ["3-bottle gift box", "$28"]] }),

  // 42 Wholesale trade
  c({ name: "Bayline Foodservice", domain: "baylinefoodservice.test", code: "424410", layout: "corporate",
    title: "Bayline Foodservice – Broadline Distribution for the Gulf Coast", description: "Family-owned distributor delivering dry, refrigerated and frozen products to 2,400 restaurants, schools and hospitals.",
    h1: "On your dock before you open", nav: ["What We Carry", "Customers", "Become a Customer", "News", "Careers"],
    sections: [["What we carry", "14,000 items: center-of-plate proteins, produce, dairy, dry goods, disposables and chemicals."], ["Our fleet", "110 temperature-controlled trucks, six-day delivery from two warehouses."], ["News", "Bayline opens its second distribution center in Mobile."]] }),

  // 51 Information
  c({ name: "Chairtime", domain: "chairtime.test", code: "513210", alternates: ["541511"], ambiguity: "booking app sold by subscription", layout: "saas",
    title: "Chairtime – Booking App for Barbers & Stylists", description: "Online booking, reminders and card payments for barbers and salons. Clients book from your Instagram link.",
    h1: "Stop answering DMs. Let 'em book.", nav: ["Features", "Pricing", "For Shops", "Log in"],
    sections: [["Book from Insta", "One link in your bio, clients pick a time and a barber."], ["No-show protection", "Take a deposit or charge a fee when they ghost."], ["Payouts", "Card payments land in your account next day."]],
    offers: [["Solo", "$19/month"], ["Shop (up to 6 chairs)", "$59/month"], ["Multi-location", "$129/month"]] }),

  // 52 Finance and insurance
  c({ name: "Buckley Insurance", domain: "buckleyinsurance.test", code: "524210",
    title: "Buckley Insurance – Home, Auto, Farm & Business", description: "Independent agent in town since 1989. We shop 12 companies to find you the right coverage.",
    h1: "We shop. You save.", nav: ["Auto", "Home", "Farm", "Business", "Get a Quote"],
    sections: [["Why independent", "We don't work for one company. We work for you, and quote you with a dozen."], ["Claims help", "Had a wreck? Call us first, we'll walk you through it."], ["Farm & ranch", "Barns, equipment, livestock, liability. We grew up on farms."]] }),

  // 53 Real estate and rental
  c({ name: "Attic Overflow Storage", domain: "atticoverflow.test", code: "531130",
    title: "Attic Overflow Storage | Units 5x5 to 10x30", description: "Drive-up and climate-controlled units. Gated, cameras, keypad access 6am-10pm. First month $1.",
    h1: "Too much stuff? Rent a unit.", nav: ["Unit Sizes", "Rent Online", "Boat & RV Parking", "Pay"],
    sections: [["Sizes", "From a closet-size 5x5 to a 10x30 that fits a whole house."], ["Climate control", "For furniture, records, paperwork, anything that hates humidity."], ["Boat & RV", "Outdoor parking spaces, month to month."]] }),

  // 54 Professional services
  c({ name: "Golden Hour Photo", domain: "goldenhourphoto.test", code: "541921", alternates: ["541922"], ambiguity: "weddings plus family and senior sessions",
    title: "Golden Hour Photo – Weddings, Families & Seniors", description: "Hi, I'm Mara! Natural light, candid, a little goofy. Based in Boise, happy to travel.",
    h1: "Photos that feel like you", nav: ["Weddings", "Families", "Seniors", "Investment", "Let's Chat"],
    sections: [["Weddings", "Full day coverage, second shooter, online gallery in 6 weeks."], ["Family sessions", "An hour at the park at sunset. Kids melting down is totally fine, those are the best shots."], ["Senior pics", "Class of '26, spots open for summer."]] }),

  // 55 Management of companies
  c({ name: "Hartigan Family Holdings", domain: "hartiganholdings.test", code: "551112", layout: "corporate",
    title: "Hartigan Family Holdings", description: "Owner of a group of regional businesses in building supply, hospitality and trucking, held for the long term.",
    h1: "Patient owners of good businesses", nav: ["Our Companies", "Approach", "News", "Contact"],
    sections: [["Our companies", "Hartigan Lumber, the Riverside Inn and Hartigan Freight each run under their own management; we hold the shares."], ["Approach", "We buy controlling stakes in family businesses and never sell them."], ["News", "Hartigan Family Holdings acquires majority stake in Keel Marine Supply."]] }),

  // 92 Public administration
  c({ name: "Fremont County Sheriff's Office", domain: "fremontcountysheriff.test", code: "922120",
    title: "Fremont County Sheriff's Office", description: "Serving the unincorporated county with patrol, investigations and civil process. In an emergency, call 911.",
    h1: "Serving Fremont County", nav: ["Report a Crime", "Inmate Lookup", "Civil Process", "Concealed Carry Permits", "Careers"],
    sections: [["Patrol", "Deputies cover 2,300 square miles, 24 hours a day."], ["Online reports", "Report theft, vandalism or lost property online if there's no suspect."], ["Join us", "Now hiring deputies and detention officers."]] }),
]
