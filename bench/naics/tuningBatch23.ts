/** Tuning batch 23: many voices and all seven layouts, weighted to 54, 44-45, 55 and 21, and to making vs selling, service vs its software, holding vs subsidiaries' trade, distributor vs retailer, contractor vs supplier. Read untuned first (see its commit). */
import type { Company } from "./companies.js"

const c = (company: Company): Company => company

/** The batch, in a fixed order. */
export const tuningBatch23: ReadonlyArray<Company> = [
  // 54 Professional services
  c({ name: "Everly Brandt LLP", domain: "everlybrandt.test", code: "541110", layout: "minimal",
    title: "Everly Brandt LLP", description: "Helping families and employers stay together across borders.",
    h1: "Your future here starts with a conversation", nav: ["People", "Insights", "Contact"],
    sections: [["Families", "Spouses, parents, children. We know how long the wait feels."], ["Employers", "Bringing the right person onto your team, on time."]],
    about: "Everly Brandt LLP is an immigration law practice. Its attorneys prepare and argue family petitions, employment visas, green card applications and naturalization cases, and represent clients in removal proceedings before the immigration courts. The firm was founded in 2011 by Marta Everly and Jonas Brandt and has offices in two cities." }),
  c({ name: "Dunleavy Land Surveys", domain: "dunleavysurveys.test", code: "541370",
    title: "Dunleavy Land Surveys | Boundary, Topo & Staking", description: "I'm Pat Dunleavy, a licensed land surveyor. Boundary surveys, topographic plans and construction staking across three counties.",
    h1: "Know exactly where your line is", nav: ["Services", "Fees", "FAQ", "About Pat", "Get a Quote"],
    sections: [["Boundary surveys", "Buying land, putting up a fence or arguing with a neighbour? I'll find the corners, set pins and give you a signed plat."], ["Topo plans for builders", "My crew and I shoot elevations and features so your engineer or architect has something real to design on."], ["Construction staking", "Footings, curbs, utilities: we put stakes where the plans say things go."]] }),
  c({ name: "Cleared Ledger", domain: "clearedledger.test", code: "541219", layout: "saas", ambiguity: "a bookkeeping service sold as monthly plans with an app; people do the books",
    title: "Cleared Ledger – Your Books, Done Every Month", description: "A dedicated bookkeeper closes your books every month. You get the reports in our app. Plans from $249/month.",
    h1: "Stop doing your own bookkeeping", nav: ["How it works", "Pricing", "Our bookkeepers", "Log in"],
    offers: [["Starter (up to $20k monthly expenses)", "$249/month"], ["Growth (up to $100k)", "$449/month"], ["Catch-up month", "$199 per month behind"]],
    sections: [["A real bookkeeper, not a bot", "Your named bookkeeper categorizes every transaction, reconciles your accounts and answers your questions within one business day."], ["Reports in the app", "Profit and loss, balance sheet and cash flow land in your dashboard by the 15th."], ["Tax-time ready", "We hand a clean year-end package to your tax preparer."]] }),
  c({ name: "Askwell Insights", domain: "askwellinsights.test", code: "541910", layout: "story",
    title: "Askwell Insights", description: "We talk to your customers so you don't have to guess.",
    h1: "We find out what people actually think", nav: ["Work", "Approach", "Team", "Say hello"],
    sections: [["", "Askwell started in 2016 because we kept seeing good products launched on hunches. So we do the asking: we write the surveys, recruit the right people, run the focus groups and the interviews, and then sit down with the numbers until they tell a story you can act on."], ["", "Most of our clients are food and drink brands and regional retailers. A typical project is a shopper survey of 1,500 people plus a dozen in-depth interviews, delivered as a short deck and a two-hour workshop with your team. We also run a twice-yearly tracker of how people in the region feel about their local high street."]] }),
  c({ name: "Brookmoor Animal Clinic", domain: "brookmoorvets.test", code: "541940", layout: "shop", ambiguity: "a vet clinic whose site opens on its pet food and supplies shop",
    title: "Brookmoor Animal Clinic | Vets & Pet Shop", description: "Vaccinations, dentals and surgery for dogs and cats, plus prescription diets and flea treatments delivered to your door.",
    h1: "Caring for Brookmoor's pets since 1994", nav: ["Book an appointment", "Our vets", "Shop", "Emergencies", "Contact"],
    offers: [["Prescription kidney diet, 8 kg", "$84.00"], ["Flea & tick chewable, 3 months", "$56.00"], ["Dental chews, 30 pack", "$18.50"], ["Annual wellness plan (dog)", "$29/month"]],
    sections: [["Our clinic", "Four vets and eight nurses see dogs, cats and rabbits six days a week. Consultations, vaccinations, neutering, dental work, x-ray and ultrasound all under one roof."], ["Shop for clients", "Order the diets and parasite treatments your vet recommends and we'll post them or have them ready at reception."]] }),
  c({ name: "Foundry Nine", domain: "foundrynine.test", code: "541511", alternates: ["541512"], ambiguity: "an agency that builds apps to order but talks like a product company",
    title: "Foundry Nine — Apps Built For Your Business", description: "We design and build web and mobile apps for growing companies. Your product, our team, shipped in weeks.",
    h1: "Your idea. Our engineers. Live in 12 weeks.", nav: ["Work", "Services", "Process", "Careers", "Start a project"],
    sections: [["Built for you, owned by you", "Every line of code we write belongs to you. No licence fees, no lock-in."], ["From discovery to launch", "Workshops, design sprints, two-week build cycles and a launch plan: one squad from start to finish."], ["Recent work", "A booking app for a chain of 40 salons, a driver app for a regional courier and a customer portal for an insurer."]] }),

  // 44-45 Retail
  c({ name: "Ewart's Carpet & Floor", domain: "ewartsfloors.test", code: "449121", alternates: ["238330"], ambiguity: "a flooring showroom that also fits what it sells",
    layout: "shop",
    title: "Ewart's Carpet & Floor – Showroom & Fitting", description: "Carpets, laminate, vinyl and wood floors at showroom prices. Free measure, fitting by our own team.",
    h1: "Floors for every room, fitted by people who care", nav: ["Carpets", "Laminate", "Vinyl", "Wood", "Fitting", "Visit us"],
    offers: [["Twist pile carpet, per sq yd", "$18.99"], ["Oak-look laminate 8mm, per sq ft", "$2.49"], ["Luxury vinyl plank, per sq ft", "$3.29"], ["Engineered oak, per sq ft", "$6.95"]],
    sections: [["Come and see it", "Over 400 samples in our 6,000 sq ft showroom. Take swatches home overnight."], ["We fit it too", "Book a free home measure; our fitters lay everything we sell."]] }),
  c({ name: "Chainring Cycles", domain: "chainringcycles.test", code: "459110", alternates: ["811490"], ambiguity: "bike shop with a busy repair workshop",
    title: "Chainring Cycles", description: "Road, gravel, kids' and e-bikes. Servicing while you wait. Open 7 days.",
    h1: "Bikes. Parts. Repairs. Coffee's on.", nav: ["Bikes", "Workshop", "Rides", "Find us"],
    sections: [["In store", "Road bikes - gravel bikes - e-bikes - kids' bikes - helmets - lights - locks - clothing"], ["Workshop", "Puncture fix $15 - Safety check $35 - Full service $120 - Wheel true $25"], ["Saturday ride", "Leaves the shop at 8am. All speeds welcome."]] }),
  c({ name: "Golden Kettle Tea", domain: "goldenkettletea.test", code: "445298", alternates: ["311920"], ambiguity: "a tea shop that mixes its own blends from bought-in leaf",
    layout: "shop",
    title: "Golden Kettle Tea | Loose Leaf Tea Shop", description: "Over 120 loose leaf teas and our own house blends. Visit the shop on Mill Street or order online.",
    h1: "Proper tea, weighed out for you", nav: ["Shop teas", "House blends", "Teaware", "Gift cards", "Our shop"],
    offers: [["Mill Street Breakfast, 100g", "$8.50"], ["Jasmine silver needle, 50g", "$14.00"], ["Chai spice blend, 100g", "$9.00"], ["Cast iron teapot", "$42.00"]],
    sections: [["Our blends", "We mix our house blends in the back of the shop from leaf we buy from estates and importers."], ["Pop in", "Smell everything before you buy. We weigh out as little as 25g."]] }),
  c({ name: "Hendry Hardware", domain: "hendryhardware.test", code: "444140", alternates: ["423710"], ambiguity: "a hardware store with a trade counter and account pricing for builders",
    layout: "minimal",
    title: "Hendry Hardware", description: "Since 1958. Open to everyone.",
    h1: "If we don't have it, you don't need it", nav: ["Trade accounts", "Opening hours", "About"],
    sections: [["Trade counter", "Opens 6:30am weekdays. Account customers get trade pricing."], ["Key cutting", "While you wait."]],
    about: "Hendry Hardware is a family-owned hardware store on the corner of Bank and Fourth. We sell tools, fasteners, paint, plumbing and electrical fittings, garden supplies and household goods to homeowners, and run a trade counter where local builders and maintenance crews can buy on account. Three generations of Hendrys have worked the counter." }),
  c({ name: "Foxglove Garden Centre", domain: "foxgloveplants.test", code: "444240", alternates: ["111421"], ambiguity: "a garden centre that grows part of what it sells",
    layout: "story",
    title: "Foxglove Garden Centre", description: "Plants, pots, compost and a cup of tea in the glasshouse café.",
    h1: "Come and get muddy", nav: ["What's in", "Plant guides", "Café", "Events", "Find us"],
    sections: [["", "Foxglove is a garden centre on the edge of Ashby run by Jo and Sam Pritchard. We sell everything you need for the garden: bedding plants, perennials, shrubs, fruit trees, compost, pots, tools and bird food. About a third of our bedding and perennials are grown in our own polytunnels behind the car park; the rest come from nurseries we've known for years."], ["", "There's a little café in the old glasshouse, and on the first Saturday of the month we run a free potting workshop for kids."]] }),

  // 55 Holding and head offices
  c({ name: "Ardmore Holdings", domain: "ardmoreholdings.test", code: "551112", ambiguity: "a holding company whose subsidiaries run hotels and car dealerships",
    layout: "corporate",
    title: "Ardmore Holdings plc | Investor Relations", description: "Ardmore Holdings owns controlling stakes in a portfolio of hospitality and automotive businesses.",
    h1: "Long-term owners of good businesses", nav: ["Our companies", "Investors", "Governance", "News", "Contact"],
    sections: [["Our companies", "Ardmore Hotels (11 hotels), Kerrigan Motors (6 franchised dealerships) and Lough Leisure (2 golf resorts) are wholly owned subsidiaries, each run by its own management team."], ["What the parent does", "Ardmore holds the shares, allocates capital and appoints the boards of its subsidiaries. It employs a head office team of nine."], ["Investors", "Interim results for the six months to 30 June are now available."]] }),
  c({ name: "Hallbrook Foods Group", domain: "hallbrookgroup.test", code: "551114", alternates: ["445110"], ambiguity: "the head office of a grocery chain, not the stores",
    layout: "corporate",
    title: "Hallbrook Foods Group – Support Centre", description: "The Hallbrook support centre provides buying, finance, HR, IT and property services to our 64 neighbourhood grocery stores.",
    h1: "Supporting our stores and the people in them", nav: ["About the group", "Our stores", "Careers at the support centre", "Media", "Suppliers"],
    sections: [["Our role", "From the support centre in Harlow, our teams plan the ranges, negotiate with suppliers, run payroll and finance, manage store openings and oversee the group's 64 stores."], ["Media centre", "Hallbrook Foods Group announces the appointment of a new Chief Financial Officer."], ["Suppliers", "Register with our buying team through the supplier portal."]] }),

  // 21 Mining, quarrying, oil and gas
  c({ name: "Crowhill Stone", domain: "crowhillstone.test", code: "212312", ambiguity: "a quarry whose site reads like a building supplies yard",
    title: "Crowhill Stone – Aggregates Delivered", description: "Limestone aggregates from our own quarry. Collected or delivered by tipper, 1 to 1,000 tonnes.",
    h1: "Stone from our hill to your site", nav: ["Products", "Delivery", "Trade accounts", "Safety", "Contact"],
    sections: [["Products", "Type 1 sub-base. 20mm clean. 40mm clean. Scalpings. Rock armour. Agricultural lime."], ["From our quarry", "Blasted, crushed and screened at Crowhill since 1962. Weighbridge open 7am-4pm."], ["Delivery", "Own fleet of 8 and 20 tonne tippers."]] }),
  c({ name: "Dryfork Wireline", domain: "dryforkwireline.test", code: "213112", alternates: ["532412"], ambiguity: "a wireline contractor that also rents out downhole tools",
    title: "Dryfork Wireline Services", description: "Cased-hole logging, perforating and plug setting for operators in the Permian Basin.",
    h1: "Wireline crews on location within 4 hours", nav: ["Services", "Tool rental", "HSE", "Careers", "Contact"],
    sections: [["Cased-hole services", "Cement bond logs, perforating, plug and perf for frac jobs, and pipe recovery. 14 units, 24/7 dispatch."], ["Tool rental", "Setting tools, gauge rings and junk baskets for rent by the day to operators and other service companies."], ["HSE", "Zero lost-time incidents in 2023."]] }),

  // 11 Agriculture
  c({ name: "Alder Hill Honey", domain: "alderhillhoney.test", code: "112910", alternates: ["311999"], ambiguity: "beekeepers who jar and sell their own honey online",
    layout: "shop",
    title: "Alder Hill Honey | Raw Honey From Our Hives", description: "Raw, unblended honey from our 300 hives in the Alder Hill valley, jarred by hand and shipped to you.",
    h1: "From our hives to your toast", nav: ["Shop", "Our bees", "Pollination", "Visit"],
    offers: [["Wildflower honey, 1 lb", "$12"], ["Clover honey, 1 lb", "$11"], ["Comb honey square", "$15"], ["Beeswax candles, pair", "$14"]],
    sections: [["Our bees", "We keep about 300 colonies and move some of them to local orchards each spring for pollination."], ["Extracted and jarred here", "We spin out the frames in our honey house and jar it without heating or blending."]] }),

  // 22 Utilities
  c({ name: "Greyfield Mutual Water Company", domain: "greyfieldwater.test", code: "221310", layout: "minimal",
    title: "Greyfield Mutual Water Company", description: "Member-owned since 1949.",
    h1: "Serving Greyfield's members", nav: ["Pay my bill", "Notices", "Board meetings", "About"],
    sections: [["Boil water notice lifted", "The precautionary notice for Oak Lane is lifted as of Tuesday."], ["Board meetings", "Second Thursday of each month, 7pm, at the well house."]],
    about: "Greyfield Mutual Water Company is a member-owned nonprofit that pumps, treats and delivers drinking water to 1,140 homes and farms in the Greyfield area. It operates four wells, two storage tanks and 38 miles of distribution main, and bills members monthly by meter reading." }),

  // 23 Construction
  c({ name: "Hartigan Roofing", domain: "hartiganroofing.test", code: "238160", ambiguity: "a roofer with a yard that sells materials to the public",
    title: "Hartigan Roofing | Re-roofs, Repairs & Materials Yard", description: "Family roofers since 1987. New roofs, leak repairs, gutters, and a materials yard open to the public.",
    h1: "We'll keep the rain out", nav: ["Roofing", "Repairs", "Materials yard", "Reviews", "Free estimate"],
    sections: [["Re-roofs", "Hi, I'm Dan Hartigan. Most of our work is tearing off tired shingle roofs and putting on new ones, about 150 houses a year. My crews do the work; we don't subcontract."], ["Leak? Call us", "Same-week repairs on flashing, valleys and skylights."], ["Materials yard", "DIY-er? You can buy shingles, underlayment and flashing from our yard at the prices we pay, plus a bit."]] }),

  // 31-33 Manufacturing
  c({ name: "Coalyard Coffee Roasters", domain: "coalyardcoffee.test", code: "311920", alternates: ["445298"], ambiguity: "a roastery with a tasting bar and an online bean shop",
    layout: "shop",
    title: "Coalyard Coffee Roasters – Freshly Roasted Beans", description: "Specialty coffee roasted twice a week in our old coal yard. Shop beans, subscriptions and wholesale.",
    h1: "Roasted Tuesday. On your doorstep Thursday.", nav: ["Shop coffee", "Subscriptions", "Wholesale", "Tasting bar", "Story"],
    offers: [["Yard Blend espresso, 1 kg", "$38"], ["Ethiopia Guji, 250 g", "$16"], ["Decaf Colombia, 250 g", "$15"], ["Subscription, 2 bags a month", "$29/month"]],
    sections: [["Wholesale", "We roast for 60 cafés and restaurants around the region, with training and machine servicing for wholesale partners."], ["Tasting bar", "Our bar by the roaster is open Saturday mornings for filter flights."]] }),

  // 42 Wholesale
  c({ name: "Backline Kitchen Supply", domain: "backlinesupply.test", code: "423440", alternates: ["449210"], ambiguity: "a distributor to restaurants with a cash-and-carry showroom and online prices",
    layout: "shop",
    title: "Backline Kitchen Supply | Commercial Kitchen Equipment", description: "Ranges, fryers, refrigeration and smallwares for restaurants, schools and caterers. Trade accounts and next-day delivery.",
    h1: "Equip your kitchen. Open on time.", nav: ["Cooking", "Refrigeration", "Smallwares", "Trade accounts", "Showroom"],
    offers: [["6-burner gas range with oven", "$2,490"], ["Twin-tank countertop fryer", "$1,150"], ["2-door reach-in fridge", "$3,280"], ["Hotel pan, 1/1 stainless (6)", "$58"]],
    sections: [["Who we supply", "Restaurants, hotels, school districts and contract caterers across four states, delivered from our 80,000 sq ft warehouse."], ["Cash & carry showroom", "Trade customers can collect smallwares the same day."]] }),

  // 48-49 Transportation
  c({ name: "Haybarn Movers", domain: "haybarnmovers.test", code: "484210", layout: "story",
    title: "Haybarn Movers", description: "Friendly local and long-distance house moves, with packing if you want it.",
    h1: "Moving house without the meltdown", nav: ["Get a quote", "Packing", "Storage", "Reviews"],
    sections: [["", "We're a small moving crew out of an old hay barn on Route 9, and we've been moving families and their furniture since 2009. We'll come and look at what you've got, give you a fixed price, wrap the piano, pack the kitchen if you want us to, and drive it all to your new place in one of our three trucks."], ["", "Most moves are in-state, but we go coast to coast a few times a month. We treat your grandmother's dresser like it's our grandmother's dresser."]] }),

  // 51 Information
  c({ name: "Crewbell", domain: "crewbell.test", code: "513210", alternates: ["541511"], ambiguity: "software for cleaning companies, not a cleaning company",
    layout: "saas",
    title: "Crewbell – Scheduling & Invoicing for Cleaning Businesses", description: "Schedule your cleaners, send quotes and get paid. Built for residential and commercial cleaning companies.",
    h1: "Run your cleaning business from your phone", nav: ["Features", "Pricing", "Customers", "Log in", "Start free trial"],
    offers: [["Solo", "$29/month"], ["Team (up to 15 cleaners)", "$89/month"], ["Pro (unlimited)", "$179/month"]],
    sections: [["Drag-and-drop scheduling", "Assign recurring cleans, swap shifts and send your crew their routes."], ["Quotes and invoices", "Quote by room or square foot and take card payments when the job is done."], ["Client checklists", "Custom checklists with before-and-after photos."]] }),

  // 52 Finance and insurance
  c({ name: "Elderton Insurance", domain: "eldertoninsurance.test", code: "524210",
    title: "Elderton Insurance | Home, Auto & Business Cover", description: "An independent agency comparing policies from 18 insurers for families and small businesses since 1972.",
    h1: "We shop the insurers so you don't have to", nav: ["Personal", "Business", "Claims help", "Our team", "Get a quote"],
    sections: [["Independent", "We are not tied to any one insurer. We compare cover from 18 companies and recommend the one that fits."], ["Claims help", "If something goes wrong, call us first. We'll walk you through the claim and chase the insurer."], ["Business cover", "General liability, commercial property, workers' comp and commercial auto for contractors, shops and restaurants."]] }),

  // 53 Real estate and rental
  c({ name: "Boxcar Storage", domain: "boxcarstorage.test", code: "531130", ambiguity: "a storage site that also sells boxes and moving supplies",
    title: "Boxcar Storage – Drive-Up Storage Units", description: "Clean, secure drive-up units from 5x5 to 10x30. Month to month, no deposit. Boxes and packing supplies on site.",
    h1: "Room for your stuff, month to month", nav: ["Unit sizes", "Pay online", "Boxes & supplies", "Directions"],
    offers: [["5x5 unit", "$45/month"], ["10x10 unit", "$109/month"], ["10x20 drive-up", "$189/month"], ["Moving kit (20 boxes, tape, wrap)", "$39"]],
    sections: [["Secure", "Keypad gate, cameras, and every unit individually alarmed."], ["Access", "Gate open 6am to 10pm, 7 days a week."]] }),

  // 56 Administrative and support
  c({ name: "Daisy Fresh Commercial Cleaning", domain: "daisyfreshcleaning.test", code: "561720", ambiguity: "a cleaning company that shows off its client app",
    title: "Daisy Fresh Commercial Cleaning", description: "Nightly office cleaning for offices, clinics and schools. Check every clean in our client app.",
    h1: "Walk into a clean office every morning", nav: ["What we clean", "Our app", "Areas", "Careers", "Free walkthrough"],
    sections: [["What we do", "I started Daisy Fresh with one van in 2014. Now 70 of us clean offices, dental clinics, gyms and two schools every night: bins, floors, kitchens, restrooms, the lot."], ["Our client app", "Every cleaner checks in and ticks off your checklist, so you can see what got done. You don't buy the app; it comes with the cleaning."], ["Free walkthrough", "We'll visit, measure and quote within 48 hours."]] }),

  // 61 Education
  c({ name: "Amberlight Driving School", domain: "amberlightdriving.test", code: "611692", layout: "menu",
    title: "Amberlight Driving School | Lessons & Test Prep", description: "Patient, certified instructors. Dual-control cars. Teens and adults. Pick-up from home or school.",
    h1: "Pass first time, nerves and all", nav: ["Lessons", "Prices", "Instructors", "Book"],
    offers: [["Single 1-hour lesson", "$65"], ["Block of 10 lessons", "$590"], ["Teen package (30 hrs classroom + 6 hrs driving)", "$495"], ["Test day (warm-up + car hire)", "$150"]],
    sections: [["Instructors", "Eight state-certified instructors, all background-checked."], ["Our cars", "Dual-control hatchbacks, automatic and manual."]] }),

  // 62 Health care
  c({ name: "Fernleaf Physio", domain: "fernleafphysio.test", code: "621340", layout: "minimal",
    title: "Fernleaf Physio", description: "Move better. Feel better.",
    h1: "Get back to what you love", nav: ["Book", "Team", "About"],
    sections: [["Direct access", "No referral needed."], ["Most insurance accepted", "Call us to check your plan."]],
    about: "Fernleaf Physio is a physical therapy clinic with five licensed physical therapists. We assess and treat back and neck pain, sports injuries, and recovery after knee, hip and shoulder surgery, using manual therapy, exercise programs and dry needling. Sessions are one-to-one and last 45 minutes." }),

  // 71 Arts, entertainment, recreation
  c({ name: "Chalk Cave Bouldering", domain: "chalkcave.test", code: "713940", ambiguity: "a climbing gym with a gear shop and a café",
    title: "Chalk Cave – Bouldering Gym, Café & Gear", description: "400 problems, reset every week. Yoga, kids' clubs, a café and a gear shop. Day passes from $18.",
    h1: "Climb. Fall. Laugh. Repeat.", nav: ["Day passes", "Memberships", "Kids", "Café", "Shop"],
    sections: [["Never climbed?", "Grab a day pass and shoes and our staff will show you the ropes (well, the mats)."], ["Memberships", "Unlimited climbing, yoga classes and 10% off in the shop and café."], ["Gear shop", "Shoes, chalk and crash pads from the brands we climb in."]] }),

  // 72 Accommodation and food services
  c({ name: "Buttercup Creamery", domain: "buttercupcreamery.test", code: "722515", alternates: ["311520"], ambiguity: "a scoop shop that churns its own ice cream in the back",
    layout: "menu",
    title: "Buttercup Creamery | Ice Cream Churned Here", description: "Small-batch ice cream made in our kitchen every morning and scooped at our Main Street parlour.",
    h1: "Made this morning, scooped this afternoon", nav: ["Flavours", "Menu", "Pints to go", "Find us"],
    offers: [["One scoop, cup or cone", "$4.75"], ["Two scoops", "$6.75"], ["Hot fudge sundae", "$8.50"], ["Milkshake", "$7.25"], ["Hand-packed pint", "$11.00"]],
    sections: [["Churned in the back", "We make every flavour ourselves with cream from a dairy 20 miles up the road."], ["This week's specials", "Brown butter pecan, lemon curd swirl, and strawberry from Foley's Farm."]] }),

  // 81 Other services
  c({ name: "Gearhouse Garage", domain: "gearhousegarage.test", code: "811111", alternates: ["441340"], ambiguity: "a repair garage that also sells tyres",
    title: "Gearhouse Garage – Servicing, Repairs & Tyres", description: "Honest car servicing and repairs, all makes and models. Tyres fitted while you wait.",
    h1: "Fixing cars right since 1999", nav: ["Services", "Tyres", "Book a service", "Reviews", "Contact"],
    sections: [["What we fix", "Brakes. Clutches. Timing belts. Diagnostics. Air con. Exhausts. Suspension."], ["Servicing", "Interim and full services to manufacturer schedule, keeping your warranty intact."], ["Tyres", "Budget to premium brands, fitted and balanced."]] }),
]
