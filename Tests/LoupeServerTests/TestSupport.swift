import Foundation
import LoupeTestSupport

/// Paths in the repository checkout the tests run from.
enum Repository {
    static let root = Corpus.repositoryRoot
}

