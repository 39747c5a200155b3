/**
 * The NAICS 2017 → 2022 revision, written by hand from the public Census concordance ("2017 NAICS U.S. Matched to
 * 2022 NAICS U.S."): only the rows that change, as our own data. Each line is `2017code 2022code[,2022code...]`; a
 * 2022 code missing from 2017 takes its title from {@link titles2022}. Unchanged codes carry over as they are.
 */

/** 2017 code → 2022 codes, for every 2017 code that changed (split rows list several targets). */
const changedRows = `
212111 212114
212112 212115
212113 212114,212115
212221 212220
212222 212220
212291 212290
212299 212290
212324 212323
212325 212323
212391 212390
212392 212390
212393 212390
212399 212390
315110 315120
315190 315120
315220 315250
315240 315250
315280 315250
316992 316990
316998 316990
321213 321215
321214 321215
322121 322120
322122 322120
325314 325314,325315
333244 333248
333249 333248
333314 333310
333316 333310
333318 333310
333997 333998
333999 333998
334613 334610
334614 334610
335110 335139
335121 335131
335122 335132
335129 335139
335911 335910
335912 335910
336111 336110
336112 336110
337124 337126
337125 337126
424320 424350
424330 424350
425110 425120
441228 441227
441310 441330
441320 441340
442110 449110
442210 449121
442291 449122
442299 449129
443141 449210
443142 449210
444130 444140
444190 444180
444210 444230
444220 444240
445120 445131
445210 445240
445220 445250
445299 445298
445310 445320
446110 456110
446120 456120
446130 456130
446191 456191
446199 456199
447110 457110
447190 457120
448110 458110
448120 458110
448130 458110
448140 458110
448150 458110
448190 458110
448210 458210
448310 458310
448320 458320
451110 459110
451120 459120
451130 459130
451140 459140
451211 459210
451212 459210
452210 455110
452311 455211
452319 455219
453110 459310
453210 459410
453220 459420
453310 459510
453910 459910
453920 459920
453930 459930
453991 459991
453998 455219,459991,459999
454110 441227,441330,441340,444140,444180,444230,444240,445131,445240,445250,445298,445320,449110,449121,449122,449129,449210,455110,455211,455219,456110,456120,456130,456191,456199,458110,458210,458310,458320,459110,459120,459130,459140,459210,459310,459410,459420,459510,459910,459920,459991,459999
454210 445132
454310 457210
454390 441330,441340,444140,444180,444230,444240,445131,445240,445250,445298,445320,449110,449121,449122,449129,449210,455219,456110,456120,456130,456191,456199,458110,458210,458310,458320,459110,459120,459130,459140,459210,459310,459410,459420,459510,459910,459920,459991,459999
511110 513110
511120 513120
511130 513130
511140 513140
511191 513191
511199 513199
511210 513210
515111 516210
515112 516110
515120 516120,516210
515210 516210
517311 517111
517312 517112,517122
517911 517121,517122
517919 517810
519110 516210
519120 519210
519130 513110,513120,513130,513140,513191,513199,516210,519290
519190 519290
522120 522180
522190 522180
522293 522299
522294 522299
522298 522299
523110 523150
523120 523150
523130 523160
523140 523160
523920 523940
523930 523940
811112 811114
811113 811114
811118 811114
811211 811210
811212 811210
811213 811210
811219 811210
`

/** Titles of 2022 six-digit codes that are new or renamed in 2022. */
export const titles2022: Readonly<Record<string, string>> = {
  "212114": "Surface Coal Mining",
  "212115": "Underground Coal Mining",
  "212220": "Gold Ore and Silver Ore Mining",
  "212290": "Other Metal Ore Mining",
  "212323": "Kaolin, Clay, and Ceramic and Refractory Minerals Mining",
  "212390": "Other Nonmetallic Mineral Mining and Quarrying",
  "311221": "Wet Corn Milling and Starch Manufacturing",
  "315120": "Apparel Knitting Mills",
  "315250": "Cut and Sew Apparel Manufacturing (except Contractors)",
  "316990": "Other Leather and Allied Product Manufacturing",
  "321215": "Engineered Wood Member Manufacturing",
  "322120": "Paper Mills",
  "325315": "Compost Manufacturing",
  "325992": "Photographic Film, Paper, Plate, Chemical, and Copy Toner Manufacturing",
  "333248": "All Other Industrial Machinery Manufacturing",
  "333310": "Commercial and Service Industry Machinery Manufacturing",
  "333998": "All Other Miscellaneous General Purpose Machinery Manufacturing",
  "334610": "Manufacturing and Reproducing Magnetic and Optical Media",
  "335131": "Residential Electric Lighting Fixture Manufacturing",
  "335132": "Commercial, Industrial, and Institutional Electric Lighting Fixture Manufacturing",
  "335139": "Electric Lamp Bulb and Other Lighting Equipment Manufacturing",
  "335910": "Battery Manufacturing",
  "336110": "Automobile and Light Duty Motor Vehicle Manufacturing",
  "337126": "Household Furniture (except Wood and Upholstered) Manufacturing",
  "424350": "Clothing and Clothing Accessories Merchant Wholesalers",
  "424940": "Tobacco Product and Electronic Cigarette Merchant Wholesalers",
  "441227": "Motorcycle, ATV, and All Other Motor Vehicle Dealers",
  "441330": "Automotive Parts and Accessories Retailers",
  "441340": "Tire Dealers",
  "444120": "Paint and Wallpaper Retailers",
  "444140": "Hardware Retailers",
  "444180": "Other Building Material Dealers",
  "444230": "Outdoor Power Equipment Retailers",
  "444240": "Nursery, Garden Center, and Farm Supply Retailers",
  "445110": "Supermarkets and Other Grocery Retailers (except Convenience Retailers)",
  "445131": "Convenience Retailers",
  "445132": "Vending Machine Operators",
  "445230": "Fruit and Vegetable Retailers",
  "445240": "Meat Retailers",
  "445250": "Fish and Seafood Retailers",
  "445291": "Baked Goods Retailers",
  "445292": "Confectionery and Nut Retailers",
  "445298": "All Other Specialty Food Retailers",
  "445320": "Beer, Wine, and Liquor Retailers",
  "449110": "Furniture Retailers",
  "449121": "Floor Covering Retailers",
  "449122": "Window Treatment Retailers",
  "449129": "All Other Home Furnishings Retailers",
  "449210": "Electronics and Appliance Retailers",
  "455110": "Department Stores",
  "455211": "Warehouse Clubs and Supercenters",
  "455219": "All Other General Merchandise Retailers",
  "456110": "Pharmacies and Drug Retailers",
  "456120": "Cosmetics, Beauty Supplies, and Perfume Retailers",
  "456130": "Optical Goods Retailers",
  "456191": "Food (Health) Supplement Retailers",
  "456199": "All Other Health and Personal Care Retailers",
  "457110": "Gasoline Stations with Convenience Stores",
  "457120": "Other Gasoline Stations",
  "457210": "Fuel Dealers",
  "458110": "Clothing and Clothing Accessories Retailers",
  "458210": "Shoe Retailers",
  "458310": "Jewelry Retailers",
  "458320": "Luggage and Leather Goods Retailers",
  "459110": "Sporting Goods Retailers",
  "459120": "Hobby, Toy, and Game Retailers",
  "459130": "Sewing, Needlework, and Piece Goods Retailers",
  "459140": "Musical Instrument and Supplies Retailers",
  "459210": "Book Retailers and News Dealers",
  "459310": "Florists",
  "459410": "Office Supplies and Stationery Retailers",
  "459420": "Gift, Novelty, and Souvenir Retailers",
  "459510": "Used Merchandise Retailers",
  "459910": "Pet and Pet Supplies Retailers",
  "459920": "Art Dealers",
  "459930": "Manufactured (Mobile) Home Dealers",
  "459991": "Tobacco, Electronic Cigarette, and Other Smoking Supplies Retailers",
  "459999": "All Other Miscellaneous Retailers",
  "485310": "Taxi and Ridesharing Services",
  "513110": "Newspaper Publishers",
  "513120": "Periodical Publishers",
  "513130": "Book Publishers",
  "513140": "Directory and Mailing List Publishers",
  "513191": "Greeting Card Publishers",
  "513199": "All Other Publishers",
  "513210": "Software Publishers",
  "516110": "Radio Broadcasting Stations",
  "516120": "Television Broadcasting Stations",
  "516210": "Media Streaming Distribution Services, Social Networks, and Other Media Networks and Content Providers",
  "517111": "Wired Telecommunications Carriers",
  "517112": "Wireless Telecommunications Carriers (except Satellite)",
  "517121": "Telecommunications Resellers",
  "517122": "Agents for Wireless Telecommunications Services",
  "517810": "All Other Telecommunications",
  "518210": "Computing Infrastructure Providers, Data Processing, Web Hosting, and Related Services",
  "519210": "Libraries and Archives",
  "519290": "Web Search Portals and All Other Information Services",
  "522180": "Savings Institutions and Other Depository Credit Intermediation",
  "522299": "International, Secondary Market, and All Other Nondepository Credit Intermediation",
  "523150": "Investment Banking and Securities Intermediation",
  "523160": "Commodity Contracts Intermediation",
  "523940": "Portfolio Management and Investment Advice",
  "524292": "Pharmacy Benefit Management and Other Third Party Administration of Insurance and Pension Funds",
  "541380": "Testing Laboratories and Services",
  "541850": "Indoor and Outdoor Display Advertising",
  "561611": "Investigation and Personal Background Check Services",
  "624410": "Child Care Services",
  "811114": "Specialized Automotive Repair",
  "811210": "Electronic and Precision Equipment Repair and Maintenance"
}

/**
 * Descriptions we wrote for 2022 codes whose content is not one 2017 code's: new industries, and the retail codes that
 * absorbed electronic shopping and direct selling (2022 classifies retailers by product, whatever the channel).
 */
export const descriptions2022: Readonly<Record<string, string>> = {
  "325315":
    "This industry comprises establishments primarily engaged in manufacturing compost through the controlled aerobic, biological decomposition of organic materials.",
  "516210":
    "This industry comprises establishments primarily engaged in providing media content distribution services, including streaming and subscription programming, social networks and other internet platforms for user content, media networks that assemble programming for affiliates, and news syndicates.",
  "519290":
    "This industry comprises establishments primarily engaged in operating web search portals, and in providing other information services not elsewhere classified, such as news clipping services and stock photo agencies.",
  "517122":
    "This industry comprises establishments primarily engaged in acting as agents for wireless telecommunications carriers and resellers, selling wireless plans on a commission basis.",
  "425120":
    "This industry comprises wholesale trade agents and brokers, including operators of business-to-business electronic markets, acting on behalf of buyers and sellers in the wholesale distribution of goods for a commission or fee, without taking title to the goods.",
  "455219":
    "This industry comprises establishments primarily engaged in retailing new goods in general merchandise stores or online (except department stores, warehouse clubs, and supercenters), including dollar stores, variety stores and general merchandise auction houses."
}

/** Retail codes that, since 2022, also cover selling the same goods online, by mail order or by direct selling. */
export const nonstoreNote =
  "Since 2022 this industry also includes establishments retailing these goods through electronic shopping, mail-order, and direct selling."

/** The parsed revision: 2017 code → its 2022 codes. */
export const from2017: ReadonlyMap<string, ReadonlyArray<string>> = new Map(
  changedRows.trim().split("\n").map((line) => {
    const [from, to] = line.trim().split(/\s+/) as [string, string]
    return [from, to.split(",")] as const
  })
)
