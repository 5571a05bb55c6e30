// The version is written once, in VERSION; everything else derives from it. These checks hold the few places
// that cannot derive it (the changelog) to it, and make sure the embedded copy is the file's.
import FaceCrop
import Foundation
import Testing

struct VersionTests {
    let file = try! String(contentsOfFile: Fixtures.path("VERSION"), encoding: .utf8)

    @Test func libraryVersionIsTheVersionFile() {
        #expect(FaceCropper.version == file.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(file.hasSuffix("\n") && file.filter { $0 == "\n" }.count == 1, "VERSION holds one line: \(file.debugDescription)")
    }

    @Test func versionIsSemantic() {
        // MAJOR.MINOR.PATCH with an optional pre-release: what SwiftPM tags and Debian versions both accept.
        let pattern = /(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.]+)?/
        #expect(FaceCropper.version.wholeMatch(of: pattern) != nil, "'\(FaceCropper.version)' is not a semantic version")
    }

    @Test func changelogHasTheVersion() throws {
        let changelog = try String(contentsOfFile: Fixtures.path("CHANGELOG.md"), encoding: .utf8)
        let sections = changelog.split(separator: "\n").filter { $0.hasPrefix("## [") }
        #expect(sections.first == "## [Unreleased]", "the changelog opens with an Unreleased section")
        let released = sections.dropFirst().first.map(String.init) ?? ""
        #expect(
            released.hasPrefix("## [\(FaceCropper.version)] - "), "the latest release in CHANGELOG.md is '\(released)', VERSION says \(FaceCropper.version)")
    }
}
