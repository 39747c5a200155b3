/**
 * What brand retrieval reads in a rendered page: functions sent to the browser as source text (`RenderSession.evaluate`),
 * so they use nothing from this module's scope. Bounded by their `limit`.
 */
declare const document: any
declare const getComputedStyle: (element: any) => any

/**
 * Runs in the rendered page (sent as source: no closures): the computed background colors of its visible buttons and
 * button-like links, at most `limit`, as `rgb()` strings. Styles set by script or inline never appear in style sheets.
 */
export const buttonColors = (limit: number): Array<string> => {
  const out: Array<string> = []
  const found = document.querySelectorAll("button, [role=button], input[type=submit], a[class*=btn], a[class*=button], .btn, .button")
  for (let i = 0; i < found.length && out.length < limit; i++) {
    const element = found[i]!
    const box = element.getBoundingClientRect()
    const style = getComputedStyle(element)
    if (box.width > 0 && box.height > 0 && style.visibility !== "hidden") out.push(style.backgroundColor)
  }
  return out
}
