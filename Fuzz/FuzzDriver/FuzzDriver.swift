// What every libFuzzer target of this package shares: starting libFuzzer's driver in a fuzzing
// build (Scripts/ci/fuzz.sh builds with -sanitize=fuzzer,address and -DLOUPE_FUZZING), and in
// the ordinary build, which compiles the targets as plain executables, saying how to run them.
#if LOUPE_FUZZING
/// libFuzzer's driver, which its own `main` would call.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif

/// Starts a fuzz target from its executable's `main`. SwiftPM links executables with `main`
/// aliased to `<module>_main`, which hides libFuzzer's own `main`, so the target's `main` calls
/// the driver itself.
public enum FuzzDriver {
    /// Runs libFuzzer over `testOneInput` with the process's arguments in a fuzzing build and
    /// returns its exit status; in an ordinary build prints `usage` and returns 0.
    public static func run(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32, usage: String) -> Int32 {
        #if LOUPE_FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
        #else
        print(usage)
        return 0
        #endif
    }
}
