/**
 * NAICS 2022 → EIC (the SDK's "Easy Industry Classification"): a table written for Sift from the NAICS titles, matched
 * by the longest NAICS prefix it lists (6 digits down to the 2-digit sector). The EIC strings are the SDK's enum values
 * verbatim (context.dev 2.19.0 `brand.ts`, `Eic.industry` / `Eic.subindustry`).
 */

/** One EIC pair. */
export interface Eic {
  readonly industry: string
  readonly subindustry: string
}

const e = (industry: string, subindustry: string): Eic => ({ industry, subindustry })

const TABLE: Readonly<Record<string, Eic>> = {
  // 11 Agriculture
  "11": e("Agriculture & Food", "Crop & Livestock Production"),
  "1125": e("Agriculture & Food", "Seafood & Aquaculture"),
  "1141": e("Agriculture & Food", "Seafood & Aquaculture"),
  "115": e("Agriculture & Food", "Agricultural Inputs & Equipment"),
  // 21 Mining, 22 Utilities
  "21": e("Industrial & Energy", "Mining & Natural Resources"),
  "211": e("Industrial & Energy", "Energy Production (Oil, Gas, Nuclear)"),
  "22": e("Industrial & Energy", "Utilities & Grid Infrastructure"),
  "221111": e("Industrial & Energy", "Renewable Energy & Cleantech"),
  "221114": e("Industrial & Energy", "Renewable Energy & Cleantech"),
  "221115": e("Industrial & Energy", "Renewable Energy & Cleantech"),
  "221116": e("Industrial & Energy", "Renewable Energy & Cleantech"),
  "221117": e("Industrial & Energy", "Renewable Energy & Cleantech"),
  "221118": e("Industrial & Energy", "Renewable Energy & Cleantech"),
  "221113": e("Industrial & Energy", "Energy Production (Oil, Gas, Nuclear)"),
  // 23 Construction
  "23": e("Construction & Built Environment", "Modular & Prefab Construction"),
  "2361": e("Construction & Built Environment", "Modular & Prefab Construction"),
  "238": e("Construction & Built Environment", "Building Materials & Procurement"),
  // 31-33 Manufacturing
  "31": e("Industrial & Energy", "Manufacturing & Industrial Automation"),
  "32": e("Industrial & Energy", "Manufacturing & Industrial Automation"),
  "33": e("Industrial & Energy", "Manufacturing & Industrial Automation"),
  "311": e("Consumer Packaged Goods (CPG)", "Food & Beverage CPG"),
  "312": e("Agriculture & Food", "Food & Beverage Manufacturing & Processing"),
  "313": e("Luxury & Fashion", "Designer & Luxury Apparel"),
  "315": e("Luxury & Fashion", "Designer & Luxury Apparel"),
  "316": e("Luxury & Fashion", "Footwear & Leather Goods"),
  "324": e("Industrial & Energy", "Energy Production (Oil, Gas, Nuclear)"),
  "325": e("Chemicals & Materials", "Specialty Chemicals"),
  "3251": e("Chemicals & Materials", "Commodity & Petrochemicals"),
  "3253": e("Chemicals & Materials", "Agrochemicals & Fertilizers"),
  "3254": e("Healthcare", "Pharmaceuticals & Drug Development"),
  "3255": e("Chemicals & Materials", "Coatings, Adhesives & Sealants"),
  "3256": e("Consumer Packaged Goods (CPG)", "Home & Personal Care CPG"),
  "32562": e("Consumer Packaged Goods (CPG)", "Beauty & Cosmetics CPG"),
  "326": e("Chemicals & Materials", "Polymers, Plastics & Rubber"),
  "3341": e("Technology", "Hardware & Semiconductors"),
  "3342": e("Telecommunications", "Network Equipment & Infrastructure"),
  "3344": e("Technology", "Hardware & Semiconductors"),
  "3345": e("Aerospace & Defense", "Avionics & Navigation Technology"),
  "3391": e("Healthcare", "Medical Devices & Diagnostics"),
  "3361": e("Automotive & Transportation", "Automotive OEMs & Vehicle Manufacturing"),
  "3363": e("Automotive & Transportation", "Aftermarket Parts & Services"),
  "3364": e("Aerospace & Defense", "Aerospace Manufacturing"),
  "336992": e("Aerospace & Defense", "Defense Systems & Military Hardware"),
  "3366": e("Automotive & Transportation", "Maritime Shipping"),
  "3399": e("Luxury & Fashion", "Accessories, Jewelry & Watches"),
  // 42 Wholesale
  "42": e("Logistics & Supply Chain", "Logistics Marketplaces"),
  "4244": e("Agriculture & Food", "Food Distribution"),
  "4245": e("Agriculture & Food", "Food Distribution"),
  // 44-45 Retail
  "44": e("Retail & E-commerce", "Omnichannel & In-Store Retail"),
  "45": e("Retail & E-commerce", "Omnichannel & In-Store Retail"),
  "441": e("Automotive & Transportation", "Aftermarket Parts & Services"),
  "445": e("Retail & E-commerce", "Food, Beverage & Grocery E-commerce"),
  "4456": e("Lifestyle & Leisure", "Beauty & Personal Care"),
  "449": e("Lifestyle & Leisure", "Home & Living"),
  "444": e("Lifestyle & Leisure", "Hobbies, Crafts & DIY"),
  "458": e("Retail & E-commerce", "Fashion & Apparel Retail"),
  "4583": e("Luxury & Fashion", "Accessories, Jewelry & Watches"),
  "4582": e("Luxury & Fashion", "Footwear & Leather Goods"),
  "4591": e("Lifestyle & Leisure", "Outdoor & Recreational Gear"),
  "4551": e("Retail & E-commerce", "Omnichannel & In-Store Retail"),
  "456": e("Lifestyle & Leisure", "Beauty & Personal Care"),
  // 48-49 Transportation and warehousing
  "48": e("Logistics & Supply Chain", "Shipping & Freight Forwarding"),
  "49": e("Logistics & Supply Chain", "Warehouse Automation"),
  "481": e("Automotive & Transportation", "Aviation & Aerospace Transport"),
  "483": e("Automotive & Transportation", "Maritime Shipping"),
  "4831": e("Automotive & Transportation", "Maritime Shipping"),
  "484": e("Logistics & Supply Chain", "Shipping & Freight Forwarding"),
  "485": e("Automotive & Transportation", "Public Transit & Urban Mobility"),
  "4853": e("Automotive & Transportation", "Mobility-as-a-Service (MaaS)"),
  "492": e("Logistics & Supply Chain", "Last-Mile Delivery"),
  "4931": e("Logistics & Supply Chain", "Warehouse Automation"),
  "493120": e("Logistics & Supply Chain", "Cold Chain Logistics"),
  "488510": e("Logistics & Supply Chain", "Shipping & Freight Forwarding"),
  // 51 Information
  "51": e("News & Media", "Digital Media & Content Platforms"),
  "5111": e("News & Media", "News Publishing & Journalism"),
  "513": e("News & Media", "News Publishing & Journalism"),
  "5132": e("Technology", "Software (B2B)"),
  "513210": e("Technology", "Software (B2B)"),
  "512": e("Entertainment", "Film, TV & Production Studios"),
  "5122": e("Entertainment", "Streaming Platforms (Video, Music, Audio)"),
  "516": e("News & Media", "Broadcasting (TV & Radio)"),
  "517": e("Telecommunications", "Mobile & Wireless Networks (3G/4G/5G)"),
  "5171": e("Telecommunications", "Broadband & Fiber Internet"),
  "5174": e("Telecommunications", "Satellite & Space-Based Communications"),
  "518": e("Technology", "Cloud Infrastructure & DevOps"),
  "519": e("News & Media", "Digital Media & Content Platforms"),
  "519290": e("Technology", "eCommerce & Marketplace Platforms"),
  // 52 Finance and insurance
  "52": e("Finance", "Banking & Lending"),
  "522": e("Finance", "Banking & Lending"),
  "5223": e("Finance", "Payments & Money Movement"),
  "522320": e("Finance", "Payments & Money Movement"),
  "522310": e("Real Estate & PropTech", "Mortgage & Lending Tech"),
  "523": e("Finance", "Investment Management & WealthTech"),
  "5231": e("Finance", "Capital Markets & Trading Platforms"),
  "5232": e("Finance", "Capital Markets & Trading Platforms"),
  "524": e("Finance", "Insurance & InsurTech"),
  "524114": e("Healthcare", "Health Insurance & Benefits Tech"),
  "525": e("Finance", "Investment Management & WealthTech"),
  // 53 Real estate and rental
  "53": e("Real Estate & PropTech", "Real Estate Marketplaces"),
  "5311": e("Real Estate & PropTech", "Rental Platforms"),
  "5313": e("Real Estate & PropTech", "Property Management Software"),
  "532": e("Construction & Built Environment", "Equipment Rental & Management"),
  "5321": e("Automotive & Transportation", "Mobility-as-a-Service (MaaS)"),
  "533": e("Legal & Compliance", "IP & Trademark Management"),
  // 54 Professional, scientific and technical services
  "54": e("Professional Services & Agencies", "Management Consulting"),
  "5411": e("Legal & Compliance", "Law Firms & Legal Services"),
  "5412": e("Professional Services & Agencies", "Accounting & Tax Firms"),
  "5413": e("Construction & Built Environment", "BIM/CAD & Design Tools"),
  "5414": e("Professional Services & Agencies", "Design, Branding & Creative Studios"),
  "5415": e("Professional Services & Agencies", "IT Services & Managed Services"),
  "541511": e("Technology", "Software (B2B)"),
  "5416": e("Professional Services & Agencies", "Management Consulting"),
  "5417": e("Healthcare", "Biotechnology & Genomics"),
  "541715": e("Aerospace & Defense", "Space & Satellite Technology"),
  "5418": e("Professional Services & Agencies", "Marketing & Advertising Agencies"),
  "541820": e("Professional Services & Agencies", "Public Relations & Communications"),
  "5419": e("Professional Services & Agencies", "Design, Branding & Creative Studios"),
  "541940": e("Healthcare", "Healthcare Providers & Services"),
  // 55, 56 Management, administrative and support
  "55": e("Professional Services & Agencies", "Management Consulting"),
  "56": e("Professional Services & Agencies", "Business Process Outsourcing (BPO)"),
  "5613": e("Professional Services & Agencies", "Staffing, Recruiting & Talent"),
  "5615": e("Hospitality & Tourism", "Travel Booking Platforms"),
  "562": e("Industrial & Energy", "Environmental Engineering & Sustainability"),
  // 61 Education
  "61": e("Education", "Online Learning & MOOCs"),
  "6111": e("Education", "K-12 Education Platforms & Tools"),
  "6113": e("Education", "Higher Education & University Tech"),
  "6114": e("Education", "Corporate Training & Upskilling"),
  "6116": e("Education", "Tutoring & Supplemental Learning"),
  "611630": e("Education", "Language Learning"),
  "611691": e("Education", "Test Prep & Certification"),
  // 62 Health care and social assistance
  "62": e("Healthcare", "Healthcare Providers & Services"),
  "6214": e("Healthcare", "Healthcare Providers & Services"),
  "621330": e("Healthcare", "Mental Health & Wellness"),
  "6215": e("Healthcare", "Medical Devices & Diagnostics"),
  "624": e("Government & Nonprofit", "Public Health & Social Services"),
  // 71 Arts, entertainment and recreation
  "71": e("Entertainment", "Events, Venues & Live Entertainment"),
  "7111": e("Entertainment", "Events, Venues & Live Entertainment"),
  "7112": e("Sports", "Professional Teams & Leagues"),
  "7113": e("Entertainment", "Events, Venues & Live Entertainment"),
  "7114": e("Sports", "Athlete Management & Talent Agencies"),
  "7132": e("Sports", "Sports Betting & Fantasy Sports"),
  "71394": e("Lifestyle & Leisure", "Fitness & Wellness"),
  "713940": e("Lifestyle & Leisure", "Fitness & Wellness"),
  "7139": e("Lifestyle & Leisure", "Outdoor & Recreational Gear"),
  // 72 Accommodation and food services
  "72": e("Hospitality & Tourism", "Hotels & Accommodation"),
  "721": e("Hospitality & Tourism", "Hotels & Accommodation"),
  "7212": e("Hospitality & Tourism", "Vacation Rentals & Short-Term Stays"),
  "722": e("Agriculture & Food", "Restaurants & Food Service"),
  // 81 Other services
  "81": e("Lifestyle & Leisure", "Home & Living"),
  "811": e("Automotive & Transportation", "Aftermarket Parts & Services"),
  "8121": e("Lifestyle & Leisure", "Beauty & Personal Care"),
  "813": e("Government & Nonprofit", "Nonprofit Operations & Fundraising Tools"),
  "8132": e("Government & Nonprofit", "Philanthropy & Grantmaking"),
  // 92 Public administration
  "92": e("Government & Nonprofit", "Government Technology & Digital Services"),
  "928": e("Aerospace & Defense", "Defense Systems & Military Hardware")
}

/** The EIC pair of a NAICS code (longest listed prefix), if the table has one. */
export const eicOf = (naics: string): Eic | undefined => {
  for (let length = Math.min(6, naics.length); length >= 2; length--) {
    const found = TABLE[naics.slice(0, length)]
    if (found !== undefined) return found
  }
  return undefined
}

/** Every pair in the table (for the test that checks each against the SDK's enums). */
export const allPairs = (): ReadonlyArray<Eic> => Object.values(TABLE)
