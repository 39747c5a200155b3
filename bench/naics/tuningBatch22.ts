/** Tuning batch 22: goods in a plain B2B voice (farms, oilfield, trades, makers, distributors, carriers) with maker/seller/repairer confusions, plus one of every other sector. Read untuned first (see its commit). */
import type { Company } from "./companies.js"

const c = (company: Company): Company => company

export const tuningBatch22: ReadonlyArray<Company> = [
  // 11 Agriculture
  c({ name: "Sandhill Custom Harvest", domain: "sandhillcustomharvest.test", code: "115113",
    title: "Sandhill Custom Harvest | Custom Combining from Texas to the Dakotas", description: "Custom combining crews for wheat, corn, milo and soybeans. We bring the combines, grain carts and trucks; you keep farming.",
    h1: "Your acres cut on time", nav: ["Services", "Our Crews", "Rates", "Book a Date"],
    sections: [["We follow the harvest", "Our six John Deere combines start in Texas wheat in May and finish in North Dakota soybeans in October."], ["Grain cart and hauling", "Every crew runs its own grain cart and semis, so your bins fill as fast as we cut."], ["Per-acre rates", "Flat per-acre rates plus a per-bushel hauling charge. Call for this season's schedule."]] }),
  c({ name: "Thistle Creek Pork", domain: "thistlecreekpork.test", code: "112210", layout: "story",
    title: "Thistle Creek Pork — A Family Farm in Iowa", description: "We raise about 12,000 pigs a year from weaning to market weight in four barns north of Sheldon.",
    h1: "Raised here, fed from our own corn", nav: ["Our Farm", "Animal Care", "Jobs", "Contact"],
    sections: [["The barns", "Weaned pigs arrive from our sow partner at three weeks and stay with us about five months, until they reach 280 pounds and ship to the packer in Sioux City."], ["The feed", "We grow 900 acres of corn and soybeans, and nearly all of it goes back into the feed we mix on site. The manure goes back onto the same fields."]] }),

  // 21 Mining
  c({ name: "Tumbleweed Wireline", domain: "tumbleweedwireline.test", code: "213112",
    title: "Tumbleweed Wireline | Cased-Hole Wireline & Perforating, Permian Basin", description: "Cased-hole logging, perforating and plug setting for operators in the Delaware and Midland basins. Crews on call 24/7.",
    h1: "Wireline crews on location when the rig needs them", nav: ["Services", "Equipment", "Safety", "Careers", "Call Out"],
    sections: [["Plug and perf", "Pump-down perforating and frac plug setting for horizontal completions, with a crew of four per unit."], ["Cased-hole logging", "Cement bond logs, gamma ray correlation and casing inspection."], ["Safety record", "ISNetworld and Avetta compliant. Zero lost-time incidents in 2023."]] }),
  c({ name: "Sawtooth Aggregates", domain: "sawtoothaggregates.test", code: "212312", layout: "shop",
    title: "Sawtooth Aggregates – Crushed Stone by the Ton", description: "Limestone quarried and crushed at our pit on Route 9. Contractors, farms and homeowners welcome. Pick up or we deliver.",
    h1: "Stone from our quarry, sized for the job", nav: ["Products", "Price List", "Delivery", "Scale House Hours"],
    offers: [["#57 clean stone (per ton)", "$22.50"], ["Crusher run / road base (per ton)", "$16.00"], ["Rip rap, 6-12 in. (per ton)", "$28.00"], ["Ag lime (per ton)", "$14.00"], ["Screenings (per ton)", "$12.00"]],
    sections: [["Our quarry", "We blast, crush and screen our own limestone. Every product comes out of the same face, tested for DOT specs."], ["Trucking", "Tri-axle delivery within 40 miles. Minimum 10 tons."]] }),

  // 22 Utilities
  c({ name: "Upper Sauk Electric Cooperative", domain: "uppersaukelectric.test", code: "221122",
    title: "Upper Sauk Electric Cooperative | Owned by the Members We Serve", description: "Delivering reliable, affordable power over 3,100 miles of line to 14,000 homes, farms and businesses in four counties.",
    h1: "Keeping the lights on in the Sauk valley", nav: ["Outage Map", "Pay My Bill", "Start Service", "Rebates", "Member News"],
    sections: [["Report an outage", "Call 1-800-555-0142 or text OUT to report. Our line crews work around the clock in storms."], ["Capital credits", "As a member-owned co-op, margins are returned to members. This year we retired $1.2 million."], ["New service", "Building a house or a grain bin? Our engineers will plan your hookup and line extension."]] }),

  // 23 Specialty trades
  c({ name: "Rockline Interiors", domain: "rocklineinteriors.test", code: "238310",
    title: "Rockline Interiors — Commercial Drywall, Framing & Ceilings", description: "Metal stud framing, board hanging, taping and finishing, and acoustic ceilings for general contractors across the metro.",
    h1: "Walls and ceilings, done to schedule", nav: ["What We Do", "Projects", "Bid Requests", "Careers"],
    sections: [["Framing and board", "Light-gauge steel framing, shaft walls and rated assemblies, hung and finished to level 5."], ["Ceilings", "ACT grid, drywall soffits and specialty wood ceilings."], ["Who we work for", "Hospitals, schools and tenant fit-outs for GCs. We don't take residential repair jobs."]] }),
  c({ name: "Windward Glass & Storefront", domain: "windwardglass.test", code: "238150",
    title: "Windward Glass & Storefront | Commercial Glass Installers", description: "We install aluminum storefronts, curtain wall, entrances and mirrors, and board up and replace broken glass 24 hours a day.",
    h1: "Commercial glass, installed and fixed fast", nav: ["Storefronts", "Curtain Wall", "Emergency Board-Up", "Projects", "Contact"],
    sections: [["New construction", "Field-measured and installed storefront systems from Kawneer and YKK for retail and office projects."], ["Emergency service", "Break-in or broken pane? A glazier is on site within two hours, day or night."]] }),
  c({ name: "Sullivan Flatwork", domain: "sullivanflatwork.test", code: "238110",
    title: "Sullivan Flatwork – Concrete Foundations, Slabs & Driveways", description: "Footings, foundation walls, slabs on grade and driveways poured by our own crews for builders and owners since 1998.",
    h1: "We pour it right the first time", nav: ["Foundations", "Slabs & Flatwork", "Gallery", "Free Estimate"],
    sections: [["Foundations", "Footings and formed walls for new homes and additions, with rebar placed to the engineer's drawings."], ["Flatwork", "Garage floors, shop slabs, driveways and sidewalks, broom or stamped finish."], ["Our crew", "Three finishing crews and our own pump truck."]] }),

  // 31-33 Manufacturing
  c({ name: "Ravenfold Knifeworks", domain: "ravenfoldknives.test", code: "332215", alternates: ["332216"], ambiguity: "a small maker selling its own knives online and offering sharpening",
    layout: "shop",
    title: "Ravenfold Knifeworks – Chef Knives Forged in Vermont", description: "Kitchen knives we forge, grind and handle in our own shop. Sold direct, with free sharpening for life.",
    h1: "Made by hand, sold by the people who made it", nav: ["Shop", "Our Workshop", "Sharpening", "Care Guide", "Cart"],
    offers: [["210mm Gyuto, carbon steel", "$285"], ["165mm Petty", "$190"], ["Bread knife, walnut handle", "$160"], ["Paring knife", "$95"], ["Mail-in sharpening (any brand)", "$12 per knife"]],
    sections: [["Our workshop", "Four makers forge every blade from 52100 and AEB-L steel, heat-treat in house and fit handles from local maple and walnut."], ["Wholesale", "We also supply a handful of restaurant kitchens and cookware shops."]] }),
  c({ name: "Stonebridge Hydraulics", domain: "stonebridgecylinders.test", code: "333995", alternates: ["811310"], ambiguity: "builds new hydraulic cylinders and also rebuilds customers' cylinders",
    title: "Stonebridge Hydraulics | Custom Hydraulic Cylinders & Rebuilds", description: "We design and build tie-rod and welded hydraulic cylinders to your print, and repair any make in our rebuild shop.",
    h1: "Cylinders built to print, rebuilt in days", nav: ["New Cylinders", "Repair & Rebuild", "Capabilities", "Request a Quote"],
    sections: [["New cylinders", "Bores from 1.5 to 12 inches and strokes to 20 feet, built for OEMs of balers, lifts and refuse trucks. Runs of one to 5,000."], ["Rebuilds", "Send us a leaking cylinder and we'll tear it down, replace seals, re-chrome the rod and pressure test it."], ["In house", "CNC turning, honing, welding and painting under one roof."]] }),
  c({ name: "Timberline Pallet", domain: "timberlinepallet.test", code: "321920", layout: "minimal",
    title: "Timberline Pallet", description: "Serving shippers across the Ohio Valley since 1986.",
    h1: "Built to carry the load", nav: ["About", "Request a Quote", "Contact"],
    sections: [["Fast turnaround", "Most standard orders ship within three days."], ["Pick-up service", "We'll haul away your broken ones too."]],
    about: "Timberline Pallet builds new hardwood pallets, skids and custom crates in our 60,000 sq ft plant in Marietta, Ohio, from lumber we saw ourselves. We also buy used pallets, repair them and resell them. ISPM-15 heat-treated for export." }),
  c({ name: "Salt Marsh Smokehouse", domain: "saltmarshsmokehouse.test", code: "311710", layout: "story",
    title: "Salt Marsh Smokehouse — Smoked Fish from the Maine Coast", description: "Cold-smoked salmon, hot-smoked mackerel and smoked mussels, cured and smoked in Brunswick and packed for grocers, restaurants and you.",
    h1: "Slow smoke, Maine fish", nav: ["Our Fish", "Wholesale", "Order Online", "Visit the Shop"],
    sections: [["How we smoke", "We buy fish off the boats in Portland, brine it overnight and smoke it over apple wood in small kilns. Then we slice, vacuum-pack and label it ourselves."], ["Where you'll find it", "Our packs are in 200 grocery stores across New England, and you can order direct from us or stop by the shop next to the smokehouse."]] }),

  // 42 Wholesale
  c({ name: "Rotary Supply Co.", domain: "rotarysupply.test", code: "423840", alternates: ["423830"],
    ambiguity: "bearings and power transmission parts distributor; could be read as machinery parts",
    title: "Rotary Supply Co. | Bearings, Belts & Power Transmission", description: "Stocking distributor of bearings, V-belts, roller chain, sprockets, gear reducers and seals for plants and maintenance shops.",
    h1: "The part in stock, on your dock tomorrow", nav: ["Products", "Brands", "Branches", "Open an Account", "Contact"],
    sections: [["Line card", "Authorized for SKF, Timken, Gates, Dodge and Rexnord. 40,000 SKUs across five branches."], ["Plant services", "Storeroom management and vending machines in your plant, plus next-morning delivery from our trucks."], ["Trade only", "We sell to businesses on account. We don't manufacture; we stock and deliver."]] }),
  c({ name: "Sunrow Produce", domain: "sunrowproduce.test", code: "424480",
    title: "Sunrow Produce – Fresh Produce Delivered to Restaurants & Schools", description: "We buy from growers across California and local farms, and deliver fresh fruits and vegetables six days a week to kitchens in the Bay Area.",
    h1: "From the farm to your walk-in by 6 a.m.", nav: ["What We Carry", "Who We Serve", "Order Portal", "Become a Customer"],
    sections: [["What we carry", "Over 900 items: lettuces, herbs, citrus, stone fruit, mushrooms and fresh-cut vegetables prepped in our own facility."], ["Local farm program", "We buy from 40 small farms within 150 miles and tell you whose lettuce you're serving."], ["Ordering", "Order by 10 p.m. and it arrives next morning on our refrigerated trucks."]] }),
  c({ name: "Waterline Supply", domain: "waterlinesupply.test", code: "423720", alternates: ["444180"], ambiguity: "trade counter for plumbers with a showroom open to homeowners",
    title: "Waterline Supply | Plumbing, Heating & Well Supplies for the Trade", description: "Pipe, fittings, water heaters, boilers, well pumps and fixtures for plumbing and HVAC contractors. Showroom open to homeowners by appointment.",
    h1: "Stocked for the pros since 1972", nav: ["Branches", "Products", "Showroom", "Contractor Accounts", "Contact"],
    sections: [["Counter and delivery", "Six branch counters open at 6:30 a.m. Same-day truck delivery to your job site."], ["Hydronic design", "Our boiler specialists lay out radiant and baseboard systems for your bids."], ["Showroom", "Bring your clients to pick faucets and fixtures; we ship to their plumber."]] }),

  // 48-49 Transportation and warehousing
  c({ name: "Tristate Flatbed", domain: "tristateflatbed.test", code: "484121",
    title: "Tristate Flatbed, Inc. | Flatbed & Step-Deck Freight Across the Lower 48", description: "Asset-based flatbed carrier with 85 trucks hauling steel, lumber, building materials and machinery coast to coast.",
    h1: "Your steel, tarped and on time", nav: ["Services", "Get a Quote", "Drive for Us", "Safety"],
    sections: [["Full loads", "Flatbed, step-deck and conestoga trailers for full loads out of the Midwest mills to anywhere in the lower 48."], ["Our drivers", "Company drivers only, no brokering out your freight."], ["Safety", "Satisfactory DOT rating and a CSA score well below the national average."]] }),
  c({ name: "Yukon Cold Storage", domain: "yukoncoldstorage.test", code: "493120", layout: "corporate",
    title: "Yukon Cold Storage | Frozen & Chilled Storage for Food Producers", description: "Four public cold storage facilities with 22 million cubic feet of frozen and chilled space, blast freezing and cross-docking.",
    h1: "Keeping the food chain cold", nav: ["Locations", "Services", "Customers", "Investors", "News", "Careers"],
    sections: [["Storage", "Frozen (-10°F) and chilled (34°F) pallet positions for meat, seafood, dairy and frozen vegetable producers, with USDA inspection on site."], ["Blast freezing", "Freeze up to 2 million pounds a day for export."], ["News", "Yukon opens its fourth site in Savannah, adding 80,000 pallet positions near the port."]] }),

  // 44-45 Retail
  c({ name: "Rusty Spur Farm & Ranch", domain: "rustyspurfarmsupply.test", code: "444240", alternates: ["424910"], ambiguity: "country store that also delivers feed and fertilizer in bulk to farms",
    layout: "shop",
    title: "Rusty Spur Farm & Ranch | Feed, Fencing & Farm Supplies", description: "Your local country store for feed, fencing, tack, pet food, seed and work boots. Bulk feed delivery for ranches.",
    h1: "Everything for the farm, one stop", nav: ["Shop", "Feed", "Fencing", "Bulk Delivery", "Store Hours"],
    offers: [["Layer pellets, 50 lb", "$18.99"], ["T-post, 6 ft", "$5.49"], ["Barbed wire, 1,320 ft roll", "$89.99"], ["Horse wormer paste", "$9.99"], ["Mineral tub, 125 lb", "$74.99"]],
    sections: [["Come see us", "Open seven days on Highway 62. Spring chicks arrive in March."], ["Bulk delivery", "Feed and mineral by the ton delivered to your ranch."]] }),

  // 51 Information
  c({ name: "Tonnage", domain: "tonnagescale.test", code: "513210", layout: "saas",
    title: "Tonnage – Scale House Software for Quarries & Sand Pits", description: "Weigh trucks, print tickets and invoice customers from one screen. Cloud software built for aggregate producers.",
    h1: "Every load weighed, ticketed and billed", nav: ["Features", "Integrations", "Pricing", "Demo", "Log in"],
    offers: [["Single scale", "$199/month"], ["Multi-site", "$449/month"], ["Enterprise", "Contact us"]],
    sections: [["Truck ticketing", "Connects to your truck scale indicator, reads the weight and prints the ticket in seconds."], ["Invoicing", "Tickets roll into invoices and sync to QuickBooks."], ["Driver app", "Drivers sign tickets on their phones."]] }),

  // 52 Finance and insurance
  c({ name: "Steadfast Fleet Insurance", domain: "steadfastfleetinsurance.test", code: "524210",
    title: "Steadfast Fleet Insurance | Coverage for Truckers & Owner-Operators", description: "Independent agents who shop 20+ carriers for trucking insurance: liability, cargo, physical damage and occupational accident.",
    h1: "We find the coverage; you keep driving", nav: ["Coverage", "Owner-Operators", "Fleets", "Get a Quote", "Certificates"],
    sections: [["Independent agency", "We aren't an insurance company. We compare quotes from Progressive, Great West, Northland and others to find the best fit."], ["Same-day certificates", "Need a COI for a shipper or broker? Request it online and get it in an hour."]] }),

  // 53 Real estate and rental
  c({ name: "Yellowiron Rentals", domain: "yellowironrentals.test", code: "532412", layout: "shop",
    title: "Yellowiron Rentals – Excavators, Loaders & Lifts for Rent", description: "Rent earthmoving equipment and aerial lifts by the day, week or month. Delivered to your site.",
    h1: "The right machine, when the job needs it", nav: ["Rental Fleet", "Rates", "Delivery", "Used Equipment", "Contact"],
    offers: [["Mini excavator, 3.5 ton (per day)", "$325"], ["Skid steer loader (per day)", "$295"], ["Rough-terrain forklift (per week)", "$1,450"], ["60 ft boom lift (per week)", "$1,900"]],
    sections: [["Fleet", "Late-model Cat, Kubota and JLG equipment, serviced between every rental."], ["Used equipment", "We sell off rental units after three years."]] }),

  // 54 Professional services
  c({ name: "Terracore Testing", domain: "terracoretesting.test", code: "541380", alternates: ["541330"], ambiguity: "materials testing firm with geotechnical engineers",
    title: "Terracore Testing | Construction Materials Testing & Inspection", description: "Concrete, soil and asphalt testing, special inspections and geotechnical investigations for builders and public agencies.",
    h1: "Test results you can build on", nav: ["Services", "Laboratory", "Special Inspections", "Request Testing"],
    sections: [["Field testing", "Nuclear density testing of compacted fill, concrete slump and air, and cylinder casting on your pour."], ["Our laboratory", "AASHTO-accredited lab breaking cylinders, running Proctors and grading aggregates."], ["Reports", "Results posted to the project portal within 24 hours."]] }),

  // 55 Management of companies
  c({ name: "Wexley Group", domain: "wexleygroup.test", code: "551112", alternates: ["551114"], ambiguity: "family holding company owning several operating businesses",
    layout: "corporate",
    title: "Wexley Group | A Family of Building Materials Companies", description: "Wexley Group owns and invests in businesses that supply stone, concrete and trucking across the Carolinas.",
    h1: "Long-term owners of essential businesses", nav: ["Our Companies", "Approach", "Leadership", "News", "Contact"],
    sections: [["Our companies", "Piedmont Ready-Mix, Catawba Stone and Wexley Transport operate independently under their own leaders."], ["Our approach", "We hold the shares, appoint the boards and provide capital. We never sell a company we buy."]] }),

  // 56 Administrative and waste services
  c({ name: "Sitewise Portables", domain: "sitewiseportables.test", code: "562991", layout: "minimal",
    title: "Sitewise Portables", description: "Clean. On time. Every week.",
    h1: "We've got your crew covered", nav: ["About", "Get Pricing", "Service Area"],
    sections: [["Construction sites", "Weekly service included."], ["Events", "From backyard weddings to county fairs."]],
    about: "Sitewise rents and services portable toilets, handwash stations and holding tanks for construction sites, farms and events in the Sacramento area. Our pump trucks service every unit weekly; we also pump out RV and holding tanks." }),

  // 61 Education
  c({ name: "RoadReady CDL Academy", domain: "roadreadycdl.test", code: "611519",
    title: "RoadReady CDL Academy | Get Your Class A CDL in 4 Weeks", description: "Classroom, range and road training to pass the Class A CDL test. Day and weekend classes, financing and job placement.",
    h1: "Four weeks to a new career behind the wheel", nav: ["Programs", "Tuition", "Financing", "Job Placement", "Enroll"],
    sections: [["Class A program", "160 hours: ELDT theory, backing on our range, and road time with an instructor in our own tractors."], ["Job placement", "Carriers recruit at every graduation. 92% of graduates hired within 30 days."]] }),

  // 62 Health care
  c({ name: "Workwell Occupational Health", domain: "workwelloccmed.test", code: "621111", alternates: ["621999"], ambiguity: "occupational medicine clinic that also does drug screening",
    title: "Workwell Occupational Health | DOT Physicals, Drug Screens & Injury Care", description: "A doctor-led clinic for employers: DOT physicals, pre-employment exams, drug and alcohol testing and work injury care.",
    h1: "Keeping your workforce healthy and on the job", nav: ["Employers", "DOT Physicals", "Drug Testing", "Injury Care", "Locations"],
    sections: [["Work injuries", "Walk in with a workplace injury; our physicians treat it and manage the workers' comp case back to full duty."], ["DOT physicals", "Certified medical examiners, walk-ins welcome, no appointment needed."], ["Employer accounts", "One invoice a month and results posted online."]] }),

  // 71 Arts, entertainment and recreation
  c({ name: "Rimfire Range", domain: "rimfirerange.test", code: "713990",
    title: "Rimfire Range | Indoor Shooting Range & Training", description: "Twelve climate-controlled lanes, gun rentals, memberships and safety classes for new and experienced shooters.",
    h1: "Shoot safe, shoot often", nav: ["Lanes", "Memberships", "Classes", "Gun Rentals", "Book a Lane"],
    sections: [["Lanes", "Twelve 25-yard lanes with electric target carriers. Walk-ins welcome."], ["Memberships", "Unlimited lane time from $39 a month."], ["Classes", "Basic pistol, concealed carry and women-only intro nights."]] }),

  // 72 Accommodation and food
  c({ name: "Sixty Mile Diner", domain: "sixtymilediner.test", code: "722511", layout: "menu",
    title: "Sixty Mile Diner – Open 24 Hours at Exit 60", description: "Home cooking for truckers and travelers since 1979. Big breakfasts, pie and truck parking.",
    h1: "Breakfast all day, pie all night", nav: ["Menu", "Daily Specials", "Hours & Directions", "Reviews"],
    offers: [["Trucker's breakfast (3 eggs, hash browns, bacon, biscuits & gravy)", "$13.99"], ["Chicken fried steak dinner", "$16.49"], ["Patty melt with fries", "$11.99"], ["Slice of pie", "$4.75"], ["Bottomless coffee", "$2.50"]],
    sections: [["Sit down and stay awhile", "Booths, counter stools and waitresses who'll keep your coffee topped off."], ["Truck parking", "Room for 40 rigs out back."]] }),

  // 81 Other services
  c({ name: "Westway Diesel", domain: "westwaydiesel.test", code: "811111", alternates: ["811114"], ambiguity: "heavy truck repair, much of it engine work",
    title: "Westway Diesel | Semi Truck & Trailer Repair", description: "Heavy-duty truck and trailer repair: engines, brakes, DOT inspections and road service. All makes, 24-hour breakdown help.",
    h1: "Get your truck back on the road", nav: ["Repair Services", "Road Service", "DOT Inspections", "Fleet Accounts", "Contact"],
    sections: [["Shop", "Eight bays for diesel engine diagnostics, in-frame overhauls, brakes, clutches and aftertreatment repairs on Freightliner, Peterbilt, Kenworth and more."], ["Road service", "Service trucks out 24/7 for breakdowns and tire calls on I-80."], ["We don't sell trucks", "We just fix them, for owner-operators and fleets alike."]] }),

  // 92 Public administration
  c({ name: "Sauk Bluff Conservation District", domain: "saukbluffconservation.test", code: "924120",
    title: "Sauk Bluff Soil & Water Conservation District", description: "Helping landowners protect soil and water in Sauk Bluff County through cost-share funding, technical help and education.",
    h1: "Healthy soil, clean water, working farms", nav: ["Cost-Share Programs", "Tree Sale", "Board Meetings", "Staff", "Contact"],
    sections: [["Cost-share", "State funds cover up to 75% of the cost of terraces, grassed waterways and cover crops. Applications due March 1."], ["Board meetings", "The elected board of supervisors meets the second Tuesday of each month. Agendas and minutes are posted here."], ["Spring tree sale", "Seedlings for windbreaks and wildlife habitat."]] }),
]
