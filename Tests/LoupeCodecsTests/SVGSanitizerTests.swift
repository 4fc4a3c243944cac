import Foundation
import Testing
@testable import LoupeCodecs

/// The SVG sanitiser, case by case: each kind of active or outside content removed (the output
/// compared byte for byte with the document less exactly those parts) or refused with its
/// typed error.
@Suite struct SVGSanitizerTests {
    private func sanitize(_ text: String) throws -> String {
        String(decoding: try SVGSanitizer.sanitize(Data(text.utf8)), as: UTF8.self)
    }

    private let open = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="10">"#

    @Test func scriptElementsAreRemovedWithTheirContent() throws {
        let input = open + #"<rect width="5" height="5"/><script type="text/javascript"><![CDATA[ alert(1) ]]></script>"#
            + #"<g><svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(2)</svg:script><circle r="1"/></g><script/></svg>"#
        #expect(try sanitize(input) == open + #"<rect width="5" height="5"/><g><circle r="1"/></g></svg>"#)
    }

    @Test func eventAttributesAreRemovedAndTheRestKeptAsWritten() throws {
        let input = #"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)" width="20"  height='10'>"#
            + #"<rect ONCLICK="alert(2)" fill="red"\#tonmouseover = 'x()' opacity="0.5"/></svg>"#
        #expect(try sanitize(input) == #"<svg xmlns="http://www.w3.org/2000/svg" width="20"  height='10'><rect fill="red" opacity="0.5"/></svg>"#)
    }

    @Test func javascriptURLsAreRemovedHoweverTheyAreSpelt() throws {
        let links = [
            #"<a href="javascript:alert(1)">"#, #"<a xlink:href=" JavaScript:alert(1)">"#, #"<a href="java&#x09;script:alert(1)">"#,
            #"<a href="&#106;avascript:alert(1)">"#, #"<a href="data:text/html;base64,PHNjcmlwdD4=">"#,
        ]
        for link in links {
            #expect(try sanitize(open + link + "<text>x</text></a></svg>") == open + "<a><text>x</text></a></svg>", "\(link)")
        }
        // A SMIL animation that would put a javascript: URL back in place is removed whole.
        let animated = open + #"<a href="\#u{23}x"><set attributeName="href" to="javascript:alert(1)"/><animate attributeName="xlink:href" "#
            + #"values="javascript:alert(1)"></animate><set attributeName="fill" to="red"/></a></svg>"#
        #expect(try sanitize(animated) == open + #"<a href="\#u{23}x"><set attributeName="fill" to="red"/></a></svg>"#)
    }

    @Test func externalReferencesAreRemovedAndInternalOnesKept() throws {
        let png = "data:image/png;base64,iVBORw0KGgo="
        let input = open
            + #"<use href="\#u{23}shape"/><use xlink:href="https://example.com/sprite.svg#icon"/><use href="data:image/svg+xml,&lt;svg/>"/>"#
            + #"<image href="http://127.0.0.1/x.png"/><image href="file:///etc/passwd"/><image xlink:href="\#(png)"/>"#
            + #"<image href="data:image/svg+xml;base64,PHN2Zy8+"/><a href="https://example.com/"><rect width="1" height="1"/></a>"#
            + #"<rect style="fill: url(https://example.com/p.svg#g)" stroke="url(#grad)"/><rect fill="url('http://x/y#z')"/>"#
            + #"<g xml:base="http://example.com/"/></svg>"#
        let expected = open
            + #"<use href="\#u{23}shape"/><use/><use/>"#
            + #"<image/><image/><image xlink:href="\#(png)"/>"#
            + #"<image href="data:image/svg+xml;base64,PHN2Zy8+"/><a><rect width="1" height="1"/></a>"#
            + #"<rect stroke="url(#grad)"/><rect/>"#
            + #"<g/></svg>"#
        #expect(try sanitize(input) == expected)
        // Style sheets that import or name outside resources lose that text; the others stay.
        let styled = open + #"<style>@import url(https://example.com/a.css);</style><style><![CDATA[rect { fill: url(#g) }]]></style></svg>"#
        #expect(try sanitize(styled) == open + #"<style></style><style><![CDATA[rect { fill: url(#g) }]]></style></svg>"#)
        // xml-stylesheet processing instructions load a style sheet: removed; the declaration stays.
        let instruction = #"<?xml version="1.0"?><?xml-stylesheet href="http://example.com/a.css"?>"# + open + "</svg>"
        #expect(try sanitize(instruction) == #"<?xml version="1.0"?>"# + open + "</svg>")
    }

    @Test func foreignObjectAndEmbeddedHTMLAreRemoved() throws {
        let input = open + #"<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://x"/>"#
            + #"<form action="javascript:alert(1)"><input/></form></div></foreignObject><h:iframe xmlns:h="http://www.w3.org/1999/xhtml" "#
            + #"src="https://x"/><h:embed xmlns:h="http://www.w3.org/1999/xhtml" src="x.swf"></h:embed><rect width="2" height="2"/></svg>"#
        #expect(try sanitize(input) == open + #"<rect width="2" height="2"/></svg>"#)
    }

    @Test func entityDeclarationsAreRefusedNotExpanded() throws {
        let laughs = #"<?xml version="1.0"?><!DOCTYPE svg [ <!ENTITY a "lol"> <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"> ]>"#
            + open + "<text>&b;</text></svg>"
        #expect(throws: SVGSanitizationError.entityDeclarations) { try sanitize(laughs) }
        let external = #"<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>"# + open + "<text>&xxe;</text></svg>"
        #expect(throws: SVGSanitizationError.entityDeclarations) { try sanitize(external) }
        let defaults = #"<!DOCTYPE svg [<!ATTLIST svg onload CDATA "alert(1)">]>"# + open + "</svg>"
        #expect(throws: SVGSanitizationError.entityDeclarations) { try sanitize(defaults) }
        // A DOCTYPE without declarations is kept, and so is a subset whose comment only
        // mentions one.
        let plain = #"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">"# + open + "</svg>"
        #expect(try sanitize(plain) == plain)
        let commented = #"<!DOCTYPE svg [ <!-- <!ENTITY x "]>"> --> ]>"# + open + "</svg>"
        #expect(try sanitize(commented) == commented)
        // The decoder refuses the same documents before librsvg reads them.
        #expect(throws: ImageCodecError.self) { try SVGDecoder().decode(Data(laughs.utf8), options: DecodingOptions()) }
    }

    @Test func brokenDocumentsAreRefused() throws {
        let broken = [
            open + "<rect></svg>", open + "<rect width=5/></svg>", open + "</g></svg>", open, open + "</svg><svg/>",
            open + "<rect width=\"<\"/></svg>", "<html><body/></html>", "", "   ", open + "<!-- never closed </svg>",
            #"<!DOCTYPE svg [ <!ENTITY a "x">"#, open + "</svg>trailing text",
        ]
        for text in broken {
            #expect(throws: SVGSanitizationError.self, "\(text)") { try sanitize(text) }
        }
        #expect(throws: SVGSanitizationError.notSVG) { try sanitize(#"<?xml version="1.0"?><html/>"#) }
    }

    /// A clean document (comments, CDATA, namespaces, a byte order mark, attribute order and
    /// quoting) comes out byte for byte the same.
    @Test func cleanDocumentsAreUnchanged() throws {
        let clean = "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- made by hand -->\n" + open
            + #"<defs><linearGradient id="g"><stop offset="0" stop-color="\#u{23}fff"/></linearGradient></defs>"#
            + #"<style><![CDATA[ .a { fill: url(#g); } ]]></style><rect class="a" x='1' y="1" width="3" height="3"/>"#
            + #"<text x="1" y="9">a &amp; b &#233;</text><image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/></svg>"#
            + "\n"
        #expect(try sanitize(clean) == clean)
    }
}
