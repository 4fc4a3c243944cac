/// `extract_focal()`: when the image is itself a thumbor URL with a manual crop (an earlier
/// cut of a photo), the photo is loaded instead and the crop's box becomes a focal point, so a
/// larger cut of the same photo centres on what the earlier one kept.
extension ThumborURL {
    /// thumbor's `MAX_LEVEL`: how many nested thumbor URLs are looked through for a crop.
    static let extractFocalLevels = 10

    /// The image under the first nested thumbor URL (its scheme and host dropped, as thumbor's
    /// pattern `^(https?://)?.*?/` drops them) that has a manual crop, and the crop's box as a
    /// focal point (its centre, weighted by its area, as `focal()`'s); `nil` when no level has
    /// one, and the image is loaded as named.
    static func extractedFocus(from image: String) -> (source: String, point: ThumborGeometry.FocalPoint)? {
        var url = Substring(image)
        for _ in 0..<extractFocalLevels {
            if url.hasPrefix("http://") { url = url.dropFirst("http://".count) } else if url.hasPrefix("https://") { url = url.dropFirst("https://".count) }
            if let slash = url.firstIndex(of: "/") { url = url[url.index(after: slash)...] }
            // A nested URL is one thumbor would take: `unsafe/` or a signature, and an image.
            guard let nested = try? ThumborURL(path: "/" + url, extractsFocus: false) else { return nil }
            if let crop = nested.options.thumbor?.crop {
                let width = crop.right - crop.left, height = crop.bottom - crop.top
                return (nested.source, ThumborGeometry.FocalPoint(x: crop.left + Self.floorHalf(width), y: crop.top + Self.floorHalf(height),
                                                                  weight: Double(width) * Double(height)))
            }
            url = Substring(nested.source)
        }
        return nil
    }

    /// Python's `n // 2`.
    private static func floorHalf(_ value: Int) -> Int { value >= 0 ? value / 2 : -((-value + 1) / 2) }
}
