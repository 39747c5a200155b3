/** Tuning batch 18: service trades and local businesses (54, 56, 81, 62, 71, 72, 44-45, 23, 48-49) in shop-talk words, plus one company in every other sector. Read untuned first (see its commit). */
import type { Company } from "./companies.js"

const c = (company: Company): Company => company

export const tuningBatch18: ReadonlyArray<Company> = [
  // 11 Agriculture (support)
  c({ name: "Dakota Custom Cutters", domain: "dakotacustomcutters.test", code: "115113", layout: "story",
    title: "Dakota Custom Cutters – Following the Wheat Since 1987", description: "Three combines, four grain carts and a crew that starts in Texas in May and finishes in North Dakota in October.",
    h1: "We bring the combines, you bring the crop", nav: ["The Run", "Equipment", "Book Your Acres", "Crew Jobs"],
    sections: [["The run", "Wheat in Oklahoma and Kansas, then barley, canola and sunflowers up north. We cut by the acre and haul to your bin or the elevator."], ["Crew jobs", "Looking for summer help: CDL truck drivers and grain cart operators. Room and board on the road."]] }),
  // 21 Mining
  c({ name: "Hollister Pit & Stone", domain: "hollisterpit.test", code: "212321",
    title: "Hollister Pit & Stone | Gravel, Fill & Washed Sand", description: "Our own pit on Route 9: pit-run, screened fill, washed concrete sand and crushed stone, loaded onto your truck or delivered.",
    h1: "Dug, screened and washed right here", nav: ["Materials", "Prices", "Delivery", "Scale House Hours"],
    offers: [["Pit-run gravel, per ton", "$9"], ["Washed concrete sand, per ton", "$16"], ["3/4\" crushed stone, per ton", "$22"]],
    sections: [["Our pit", "We strip the overburden, dig with our own loaders and run everything through the screen plant and wash plant on site."], ["Pick up or delivery", "Contractors load at the scale house from 6:30 am. Tri-axle delivery within 25 miles."]] }),
  // 22 Utilities
  c({ name: "Linden Springs Water Company", domain: "lindenspringswater.test", code: "221310",
    title: "Linden Springs Water Company", description: "Serving 4,200 homes and businesses in Linden and Cole Township with clean, safe drinking water from our wells and treatment plant.",
    h1: "Your tap water, from our wells", nav: ["Pay My Bill", "Start or Stop Service", "Water Quality Report", "Outages & Notices", "Contact"],
    sections: [["Water quality", "We test daily at the treatment plant and publish an annual Consumer Confidence Report."], ["Boil water notices", "Sign up for text alerts about main breaks and flushing in your street."], ["Hydrant flushing", "Crews flush hydrants each spring; your water may look cloudy for a few hours."]] }),
  // 31-33 Manufacturing
  c({ name: "Carver Street Cabinet Shop", domain: "carverstreetcabinet.test", code: "337110", alternates: ["238350"], ambiguity: "builds cabinets in its own shop and also installs them",
    title: "Carver Street Cabinet Shop | Built Here, Not Flat-Packed", description: "Custom kitchen and bath cabinets built in our Cleveland shop from maple, cherry and white oak, then hung by the same people who built them.",
    h1: "Face-frame cabinets, built to your kitchen", nav: ["Our Work", "The Shop", "Wood & Finishes", "Start a Project"],
    sections: [["In the shop", "Every box is cut on our CNC, dovetailed drawers are assembled by hand and doors are sprayed in our finishing booth."], ["Tops too", "We fabricate solid wood and laminate tops; stone tops come from a partner fabricator."]] }),
  // 42 Wholesale
  c({ name: "Eastmarket Produce", domain: "eastmarketproduce.test", code: "424480",
    title: "Eastmarket Produce – Produce for Restaurants & Grocers", description: "We buy from growers and the terminal market every night and deliver cases of lettuce, tomatoes and citrus to kitchens by 7 am.",
    h1: "On your dock before the lunch prep", nav: ["What We Carry", "Become a Customer", "Order Guide", "Delivery Routes"],
    sections: [["Case and half-case", "We sell to restaurants, schools and independent grocers only. Not open to the public."], ["Ripening rooms", "Bananas and avocados are ripened in our rooms to the stage your kitchen wants."], ["Order by 10 pm", "Text or use the order guide; our trucks leave at 3 am."]] }),
  // 51 Information
  c({ name: "Heronwire", domain: "heronwire.test", code: "517111", layout: "saas",
    title: "Heronwire – Fiber Internet for Marsh County", description: "Symmetrical fiber internet to the home, built and run by a local company. No data caps, no contracts.",
    h1: "Real fiber, all the way to your house", nav: ["Check Address", "Plans", "Construction Map", "Support"],
    offers: [["300 Mbps", "$55/month"], ["1 Gig", "$75/month"], ["2 Gig", "$110/month"]],
    sections: [["We own the lines", "Our crews bury the fiber and hang it on the poles; your connection never rides someone else's network."], ["Installation", "A technician runs the drop and sets up your Wi-Fi router, free."], ["Phone line", "Add home phone service with your current number for $15."]] }),
  // 52 Finance & insurance
  c({ name: "Goodwin & Pratt Insurance", domain: "goodwinpratt.test", code: "524210",
    title: "Goodwin & Pratt Insurance | Independent Agents", description: "We shop your home, auto and business coverage with 20 carriers and help you file when something goes wrong.",
    h1: "One agent, twenty companies to choose from", nav: ["Home & Auto", "Business", "File a Claim", "Get a Quote"],
    sections: [["We work for you", "As an independent agency we are not tied to one insurer; every renewal we check the market again."], ["Business coverage", "General liability, workers' comp and commercial auto for contractors and restaurants."]] }),
  // 53 Real estate / rental
  c({ name: "Lockyard Storage", domain: "lockyardstorage.test", code: "531130",
    title: "Lockyard Storage – Units from 5x5 to 10x30", description: "Drive-up and climate-controlled storage units with gated 24-hour access. Rent online in five minutes.",
    h1: "Extra room, right off Highway 40", nav: ["Unit Sizes", "Rent Online", "Boat & RV Parking", "Pay Rent"],
    offers: [["5x10 drive-up", "$59/month"], ["10x10 climate controlled", "$109/month"], ["RV parking space", "$85/month"]],
    sections: [["Secure", "Keypad gate, cameras and lights on all night."], ["Month to month", "No long leases; first month $1 on select units."]] }),
  // 55 Management of companies
  c({ name: "Fairbank Group", domain: "fairbankgroup.test", code: "551114", alternates: ["551112"], ambiguity: "a family group office that runs shared services for the businesses it owns", layout: "corporate",
    title: "Fairbank Group | A Family of Businesses", description: "Fairbank Group is the home office behind six car dealerships, two hotels and a propane distributor across the Ohio Valley.",
    h1: "The people behind our companies", nav: ["Our Companies", "Leadership", "Shared Services", "News", "Careers"],
    sections: [["Our companies", "Fairbank Ford, Fairbank Toyota, two Riverfront Inns and Valley Propane each run under their own names and managers."], ["Shared services", "From our headquarters in Marietta we run accounting, payroll, HR, IT and purchasing for every company in the group."], ["News", "Fairbank Group completes purchase of a Chevrolet dealership in Parkersburg."]],
    about: "Founded by Harold Fairbank in 1962 with one used car lot, the group is still family owned. The home office sets strategy, approves capital spending and provides back-office support to each operating company." }),
  // 61 Education
  c({ name: "Clutch & Signal Driving School", domain: "clutchsignal.test", code: "611692",
    title: "Clutch & Signal | Teen & Adult Driver Training", description: "State-approved classroom course and behind-the-wheel lessons in dual-brake cars. We pick you up from school.",
    h1: "From permit to license, calm and ready", nav: ["Teen Program", "Adult Lessons", "Road Test Prep", "Schedule"],
    offers: [["Teen package (30 hrs class + 6 hrs driving)", "$495"], ["Single 1-hour lesson", "$65"], ["Road test car rental + warm-up", "$120"]],
    sections: [["Patient instructors", "All our instructors are state-certified and background checked."], ["Road test day", "Use our car for the test and get a 45-minute warm-up drive first."]] }),
  // 92 Public administration
  c({ name: "East Haddon Fire District", domain: "easthaddonfire.test", code: "922160",
    title: "East Haddon Fire District – Station 4", description: "Your volunteer and career firefighters answering fire, rescue and medical calls in East Haddon since 1911.",
    h1: "Neighbors protecting neighbors", nav: ["Burn Permits", "Join Us", "Smoke Alarm Program", "Board Meetings", "Annual Report"],
    sections: [["Burn permits", "Open burning of brush needs a free permit from the district; call before you light."], ["Join us", "We train new volunteers every fall; no experience needed."], ["Board of fire commissioners", "Meetings are the second Tuesday of each month; the district budget and tax rate are voted in December."]] }),

  // 56 Admin, support & waste
  c({ name: "Mowbray Grounds Crew", domain: "mowbraygrounds.test", code: "561730",
    title: "Mowbray Grounds Crew | Commercial Mowing & Property Upkeep", description: "Weekly mowing, edging, mulch, shrub trimming and leaf cleanup for HOAs, office parks and apartment complexes.",
    h1: "Your grounds, kept sharp all season", nav: ["Commercial", "HOAs", "Seasonal Cleanups", "Snow", "Request a Bid"],
    sections: [["Same crew every week", "A crew leader who knows your property, uniformed crews and trucks, and photo reports after each visit."], ["Spring and fall", "Bed edging, fresh mulch, aeration and overseeding, then leaves hauled off in November."], ["Snow", "Plowing and sidewalk salting for our mowing clients."]] }),
  c({ name: "Critter Gitter", domain: "crittergitter.test", code: "561710", layout: "minimal",
    title: "Critter Gitter", description: "If it crawls, bites or nests in your attic, call us.",
    h1: "Bugs out. Peace of mind in.", nav: ["Call Now", "Reviews", "Service Area"],
    sections: [["Same-week visits", "Most calls get a tech within three days."], ["Quarterly plans", "One price, four visits a year, free re-treats."]],
    about: "Critter Gitter is a family-owned bug and rodent outfit in Tulsa. Our licensed techs treat homes and restaurants for ants, roaches, spiders, bed bugs and termites, seal up mouse entry points and remove wasp nests. We also trap and relocate squirrels and raccoons from attics." }),
  c({ name: "Dependable Pumping & Johns", domain: "dependablepumping.test", code: "562991", layout: "minimal",
    title: "Dependable Pumping & Johns", description: "Rural Wisconsin's go-to since 1979.",
    h1: "We handle the dirty work", nav: ["Call Dispatch", "Event Rentals", "Service Area"],
    sections: [["Every 3 years", "Most households should be on a three-year schedule."], ["Events and job sites", "Units delivered, cleaned weekly and picked up."]],
    about: "Dependable pumps residential and commercial septic tanks and grease traps with our four vacuum trucks, locates and digs up tank lids, and does the pump-outs required for property sales. We also rent and service porta-johns, ADA units and hand-wash stations for weddings, fairs and construction sites." }),

  // 81 Other services
  c({ name: "Earl's Garage", domain: "earlsgarage.test", code: "811111",
    title: "Earl's Garage | Honest Car Repair in Bellmont", description: "Check engine light on? Brakes grinding? Bring it to Earl's. ASE-certified techs, fair prices, 24-month warranty.",
    h1: "We fix cars the way we'd fix our mom's", nav: ["Services", "Coupons", "Reviews", "Book an Appointment"],
    offers: [["Oil change, synthetic", "$69"], ["Diagnostic scan", "$95"], ["Front brake pads and rotors", "from $289"]],
    sections: [["What we work on", "Brakes, suspension, timing belts, AC, engine diagnostics and state inspections on most makes and models."], ["We call first", "Nothing gets fixed until you okay it. We text photos of worn parts."]] }),
  c({ name: "Fresh Cuts on Main", domain: "freshcutsonmain.test", code: "812111", layout: "story",
    title: "Fresh Cuts on Main – Fades, Tapers & Hot Towel Shaves", description: "Four chairs, walk-ins welcome, and the best skin fade in town.",
    h1: "Pull up a chair", nav: ["Book", "Our Barbers", "Prices", "Hours"],
    offers: [["Men's cut", "$30"], ["Skin fade", "$35"], ["Hot towel straight-razor shave", "$35"], ["Kids under 12", "$22"]],
    sections: [["The shop", "Marcus opened Fresh Cuts in 2015 with one chair and a radio. Now it's four barbers, a TV with the game on and coffee on the house."], ["Walk-ins", "Walk-ins welcome till 6; book online if you want a set time."]] }),
  c({ name: "Lather & Leash", domain: "latherandleash.test", code: "812910",
    title: "Lather & Leash Dog Spa | Grooming & Baths", description: "Full grooms, bath-and-brush, nail trims and de-shedding for dogs of every size. Cage-free and by appointment.",
    h1: "Clean dog, happy human", nav: ["Services", "Prices", "First Visit", "Book"],
    offers: [["Bath & brush, small dog", "$45"], ["Full groom, doodle", "$110"], ["Nail trim (walk-in)", "$15"]],
    sections: [["One dog at a time", "Your dog is never left in a kennel dryer; our groomers work one-on-one."], ["Doodles welcome", "Teddy-bear cuts, puppy intros and de-matting."]] }),

  // 54 Professional services
  c({ name: "Cedar Knoll Animal Hospital", domain: "cedarknollvet.test", code: "541940",
    title: "Cedar Knoll Animal Hospital", description: "Wellness exams, vaccines, dental cleanings and surgery for dogs and cats. New clients welcome.",
    h1: "Good care for your best friend", nav: ["Our Doctors", "New Clients", "Pharmacy", "Emergencies", "Book"],
    sections: [["Wellness", "Yearly exams, vaccines, heartworm testing and puppy and kitten packages."], ["Surgery and dental", "Spays, neuters, lump removals and anesthetic dental cleanings with digital X-rays."], ["After hours", "For emergencies after 7 pm call the regional pet ER."]] }),
  c({ name: "Attic to Footing", domain: "attictofooting.test", code: "541350", layout: "minimal",
    title: "Attic to Footing", description: "Know what you're buying.",
    h1: "Before you sign, we look", nav: ["Schedule", "Sample Report", "FAQ"],
    sections: [["Report in 24 hours", "Photos, plain language and a summary of what matters."], ["Add-ons", "Radon, sewer scope, mold."]],
    about: "Attic to Footing is a certified home inspector serving buyers and sellers around Columbus. Before closing, we walk the roof, crawl the attic and crawlspace, test outlets, run the furnace and AC and check the foundation, then write up everything wrong with the house. We also do pre-listing and new-construction phase checks." }),

  // 62 Health care & social assistance
  c({ name: "Juniper Smiles", domain: "junipersmiles.test", code: "621210",
    title: "Juniper Smiles Family Dental", description: "Cleanings, fillings, crowns and Invisalign for the whole family. Evening hours and most insurance accepted.",
    h1: "A dentist you won't dread", nav: ["New Patients", "Services", "Insurance", "Meet Dr. Osei", "Book"],
    sections: [["Checkups and cleanings", "Twice-a-year hygiene visits with digital X-rays."], ["Same-day crowns", "We mill crowns in the office so you leave with your tooth finished."], ["Nervous patients", "Ask about nitrous oxide."]] }),
  c({ name: "Cubby Hole Daycare", domain: "cubbyholedaycare.test", code: "624410",
    title: "Cubby Hole Daycare & Preschool", description: "Licensed daycare for infants through pre-K, open 6:30 to 6 on weekdays, with a fenced playground and meals included.",
    h1: "A second home for your little one", nav: ["Rooms", "Tuition", "A Day with Us", "Enroll", "Parents"],
    offers: [["Infant room, full time", "$340/week"], ["Toddlers, full time", "$295/week"], ["Pre-K, full time", "$260/week"]],
    sections: [["Our rooms", "Infants, toddlers, twos and pre-K, each with its own teachers and low ratios."], ["Daily updates", "Photos, naps and diaper changes sent to your phone through our parent app."]] }),

  // 71 Arts, entertainment & recreation
  c({ name: "Kingpin Lanes", domain: "kingpinlanes.test", code: "713950",
    title: "Kingpin Lanes | 24 Lanes, Leagues & Glow Bowling", description: "Open play, leagues, birthday parties and Saturday night glow bowling, with a snack bar and arcade.",
    h1: "Strike up a good time", nav: ["Open Play", "Leagues", "Parties", "Glow Bowl", "Snack Bar"],
    offers: [["Game, per person", "$5.50"], ["Shoe rental", "$4"], ["Lane, per hour (up to 6)", "$35"]],
    sections: [["Leagues", "Fall leagues start in September; singles welcome, we'll find you a team."], ["Birthday parties", "Two hours of bowling, pizza, soda and a party host."]] }),

  // 72 Accommodation & food
  c({ name: "El Comal on Wheels", domain: "elcomalonwheels.test", code: "722330", layout: "menu",
    title: "El Comal on Wheels – Tacos from the Truck", description: "Handmade tortillas and birria tacos from our truck. Find today's spot on our schedule.",
    h1: "Follow the truck, find the tacos", nav: ["Menu", "Where We Are Today", "Book the Truck", "Contact"],
    offers: [["Birria tacos (3) with consomé", "$13"], ["Al pastor taco", "$3.50"], ["Quesabirria", "$6"], ["Horchata", "$4"]],
    sections: [["This week", "Tuesday at the brewery on 5th, Thursday by the hospital, weekends at the farmers market."], ["Catering", "Book the truck for weddings and office lunches."]] }),
  c({ name: "Gaslight Tap House", domain: "gaslighttaphouse.test", code: "722410", layout: "menu",
    title: "Gaslight Tap House | 24 Taps, Darts & Trivia", description: "A neighborhood bar pouring 24 rotating drafts from regional breweries, plus cocktails and a few snacks. 21+.",
    h1: "Your local, with better beer", nav: ["On Tap", "Events", "Happy Hour", "Private Room"],
    offers: [["Pint, rotating drafts", "$7"], ["Flight of four", "$12"], ["Old fashioned", "$11"], ["Soft pretzel with beer cheese", "$9"]],
    sections: [["We don't brew", "We pour: the tap list changes weekly with the best of the state's breweries."], ["Events", "Trivia on Wednesdays, dart league Thursdays, happy hour 4-6 daily."]] }),

  // 44-45 Retail
  c({ name: "Chainline Cycles", domain: "chainlinecycles.test", code: "459110", layout: "shop",
    title: "Chainline Cycles | Bikes, Gear & Repairs", description: "Road, gravel, mountain and kids' bikes, helmets and parts, plus a full-service repair bench.",
    h1: "Ride more, fix less", nav: ["Bikes", "Parts & Gear", "Service", "Group Rides", "Cart"],
    offers: [["Trek Marlin 5 hardtail", "$749"], ["Kids' 20\" bike", "$329"], ["MIPS helmet", "$79"], ["Tune-up", "$85"]],
    sections: [["Fit and test ride", "Every bike is sized to you and you can ride it around the block first."], ["Group rides", "No-drop ride from the shop every Saturday at 8."]] }),
  c({ name: "Dahlia Row", domain: "dahliarow.test", code: "459310", layout: "shop",
    title: "Dahlia Row Flowers | Same-Day Flower Delivery", description: "Hand-tied bouquets, sympathy arrangements and wedding flowers, arranged in our shop and delivered the same day.",
    h1: "Flowers arranged by hand, delivered today", nav: ["Shop Bouquets", "Sympathy", "Weddings", "Delivery Info", "Cart"],
    offers: [["Seasonal hand-tied bouquet", "$65"], ["Dozen red roses", "$85"], ["Sympathy standing spray", "$225"]],
    sections: [["Same-day delivery", "Order by 1 pm for delivery the same day anywhere in the city."], ["Weddings", "Bridal bouquets, boutonnieres and centerpieces; book a consultation."]] }),

  // 23 Construction
  c({ name: "Hatfield Roofing", domain: "hatfieldroofing.test", code: "238160", layout: "story",
    title: "Hatfield Roofing – Tear-Offs, Re-Roofs & Leak Repair", description: "Asphalt shingle and standing-seam metal roofs for homes in the Lehigh Valley. Free estimates, 10-year workmanship warranty.",
    h1: "A roof you won't think about for 30 years", nav: ["Our Roofs", "Storm Damage", "Gallery", "Free Estimate"],
    sections: [["How we work", "We tear off down to the deck, replace rotten plywood, put down ice and water shield and new flashing, and haul off every nail with a magnet sweep."], ["Storm damage", "Hail or wind? We'll get on the roof, take photos and meet your adjuster."]] }),
  c({ name: "Big Muddy Dirt Work", domain: "bigmuddydirtwork.test", code: "238910", alternates: ["238990"], ambiguity: "general dirt work that shades into driveways and drainage",
    title: "Big Muddy Dirt Work | Lot Clearing, Pads & Grading", description: "Dozer and excavator work for builders and landowners: clearing, house pads, driveways, ponds and culverts.",
    h1: "We move dirt", nav: ["Services", "Equipment", "Past Jobs", "Get a Price"],
    sections: [["Lot clearing", "Trees pushed, stumps dug and burned or ground, brush mulched."], ["House pads and grading", "Cut and fill, compacted pads ready for your foundation crew, final grade and topsoil."], ["Driveways and culverts", "Rock driveways, ditches and culvert pipe set to drain."]] }),

  // 48-49 Transportation
  c({ name: "Arctic Run Trucking", domain: "arcticruntrucking.test", code: "484230", alternates: ["484121"], ambiguity: "refrigerated truckload; many analysts file reefer freight under general truckload",
    title: "Arctic Run Trucking | Reefer Hauling, 48 States", description: "Forty late-model reefer units hauling produce, frozen food and meat coast to coast. Temperature tracked every mile.",
    h1: "Keeping your loads cold from dock to dock", nav: ["Shippers", "Drive for Us", "Lanes", "Safety", "Contact Dispatch"],
    sections: [["Reefer loads", "Fresh and frozen, -20°F to 65°F, with continuous temperature download for every load."], ["Regular lanes", "California and Arizona produce to the Midwest and Northeast, frozen back."], ["Drive for us", "OTR company drivers and lease-purchase; 2 years' experience and a clean MVR."]] }),
  c({ name: "Jake's Wrecker Service", domain: "jakeswrecker.test", code: "488410",
    title: "Jake's Wrecker Service | 24/7 Towing & Roadside", description: "Flatbed towing, lockouts, jump starts and winch-outs around the clock. Police rotation and heavy-duty recovery.",
    h1: "Stuck? We're on the way.", nav: ["Call 24/7", "Roadside Help", "Heavy Duty", "Impound Lot"],
    offers: [["Local tow (up to 10 miles)", "$125"], ["Lockout", "$65"], ["Jump start", "$55"]],
    sections: [["Flatbeds and wheel-lifts", "We tow cars, motorcycles and box trucks without damaging AWD drivetrains."], ["Impound lot", "Picking up a vehicle? Bring ID and proof of ownership; the lot is open 8 to 5."]] }),
]
