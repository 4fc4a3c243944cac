extension PlaygroundFiles {
    /// The page's style sheet.
    static let style = #"""
:root { font-family: system-ui, sans-serif; color: #1d1d1f; background: #f5f5f7; }
body { margin: 0; }
header { display: flex; align-items: center; gap: 1.5rem; padding: 0.6rem 1.2rem; background: #1d1d1f; color: #f5f5f7; }
header h1 { font-size: 1.2rem; margin: 0; }
header nav a { color: #f5f5f7; margin-right: 1rem; text-decoration: none; padding: 0.2rem 0.5rem; border-radius: 4px; }
header nav a.current { background: #f5f5f7; color: #1d1d1f; }
#signing { margin-left: auto; font-size: 0.8rem; opacity: 0.8; }
main { padding: 1rem 1.2rem; }
form { display: flex; flex-wrap: wrap; gap: 0.6rem; }
fieldset { border: 1px solid #d2d2d7; border-radius: 6px; padding: 0.4rem 0.6rem; display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
fieldset label { font-size: 0.85rem; }
input[type=number] { width: 4.2rem; }
#source { width: 22rem; }
.url code { display: block; word-break: break-all; background: #fff; padding: 0.4rem 0.6rem; border-radius: 4px; font-size: 0.8rem; }
.stage { display: flex; gap: 1.5rem; align-items: flex-start; }
.stage > figure { flex: 1 1 0; min-width: 0; margin: 0; }
.frame { background: repeating-conic-gradient(#ddd 0 25%, #fff 0 50%) 0 0 / 16px 16px; display: inline-block; min-width: 64px; min-height: 64px; }
.frame img { display: block; max-width: 100%; }
#timing { display: flex; gap: 0.8rem; list-style: none; padding: 0; font-size: 0.8rem; flex-wrap: wrap; }
#timing li { background: #fff; border-radius: 4px; padding: 0.1rem 0.4rem; }
.error { color: #b00020; }
aside { background: #fff; border-radius: 8px; padding: 0.6rem 1rem; flex: 0 0 20rem; }
aside h2 { font-size: 1rem; margin: 0.2rem 0; }
.swatch { display: inline-block; width: 1.4rem; height: 1.4rem; border-radius: 4px; vertical-align: middle; border: 1px solid #0002; }
.palette { display: flex; gap: 0.3rem; margin: 0.5rem 0; }
.palette span { width: 1.6rem; height: 1.6rem; border-radius: 4px; border: 1px solid #0002; }
.hashes { display: flex; gap: 1rem; }
.hashes figure { margin: 0; }
.hashes canvas { width: 128px; height: 96px; image-rendering: auto; border-radius: 4px; }
.hashes figcaption { font-size: 0.75rem; max-width: 128px; word-break: break-all; }
.note { color: #515154; font-size: 0.9rem; }
.feed { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 0.8rem; }
.cell { border-radius: 10px; padding: 0.6rem; min-height: 150px; display: flex; flex-direction: column; gap: 0.3rem; background: #e8e8ed; }
.cell canvas, .cell img { width: 100%; aspect-ratio: 3 / 2; border-radius: 6px; display: block; }
.cell .label { font-size: 0.75rem; }
.menu { display: grid; grid-template-columns: repeat(3, 1fr); gap: 1rem; }
.section { background: #fff; border-radius: 8px; padding: 0.6rem; }
.section h2 { font-size: 1rem; margin: 0 0 0.4rem; text-transform: capitalize; }
.item { display: flex; align-items: center; gap: 0.5rem; margin: 0.3rem 0; min-height: 64px; }
.item img { width: 64px; height: 64px; border-radius: 6px; }
.item.placeholder .thumb { width: 64px; height: 64px; border-radius: 6px; background: linear-gradient(90deg, #e8e8ed, #f5f5f7, #e8e8ed); }
.item.placeholder .text { width: 7rem; height: 0.8rem; background: #e8e8ed; border-radius: 3px; }
.section .error { font-size: 0.85rem; }
"""#
}
