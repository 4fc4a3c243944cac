/// The one reading of a boolean, for every setting (flag, `LOUPE_*` and `IMGPROXY_*` variable)
/// and every URL option: exactly imgproxy's spellings (Go's `strconv.ParseBool`).
///
/// A security switch such as `LOUPE_ALLOW_PRIVATE_NETWORKS` must not turn on by accident, so
/// `on`, `yes`, an empty value and every other spelling are refused by the caller rather than
/// guessed at; what an empty value means (unset, or imgproxy's `false` for some URL options) is
/// the caller's decision too.
enum BooleanSpelling {
    /// The spellings accepted, true ones first, in the order error messages list them.
    static let accepted = "1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False"

    /// `true` or `false` for one of imgproxy's spellings, `nil` for anything else (empty included).
    static func value(of text: String) -> Bool? {
        switch text {
        case "1", "t", "T", "TRUE", "true", "True": true
        case "0", "f", "F", "FALSE", "false", "False": false
        default: nil
        }
    }
}
