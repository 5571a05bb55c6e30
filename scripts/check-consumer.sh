#!/usr/bin/env bash
# Builds a small package that depends on facecrop by version, as another project would, and crops an image
# through the library. facecrop's HEAD is cloned into a temporary folder and tagged with VERSION there (the
# repository itself is never tagged); the consumer names it `.package(url: "file://...", from: VERSION)`,
# which SwiftPM refuses when any target of the product uses unsafeFlags. The library's crop must be byte for
# byte the command's (--bin, default .build/debug/facecrop; skipped with --bin ''), with every face inside.
# Prints the consumer's build time. Usage: scripts/check-consumer.sh [--bin PATH] [--keep]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=.build/debug/facecrop
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "check-consumer: unknown argument '$1'" >&2; exit 64 ;;
  esac
done
version=$(tr -d '[:space:]' < VERSION)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/facecrop-consumer.XXXXXX")
if [ "$keep" -eq 0 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "check-consumer: keeping $tmp"; fi

head=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "check-consumer: note: uncommitted changes are not part of the check (it builds commit ${head:0:7})" >&2
fi
git clone -q --depth 1 "file://$root" "$tmp/facecrop"
[ "$(git -C "$tmp/facecrop" rev-parse HEAD)" = "$head" ] || git -C "$tmp/facecrop" fetch -q --depth 1 origin "$head"
git -C "$tmp/facecrop" checkout -q "$head"
git -C "$tmp/facecrop" tag "$version"

mkdir -p "$tmp/consumer/Sources/Consumer"
cat > "$tmp/consumer/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "consumer",
    dependencies: [.package(url: "file://$tmp/facecrop", from: "$version")],
    targets: [.executableTarget(name: "Consumer", dependencies: [.product(name: "FaceCrop", package: "facecrop")])]
)
SWIFT
cat > "$tmp/consumer/Sources/Consumer/main.swift" <<'SWIFT'
// Crops CommandLine.arguments[1] to 16:9 with a 200 px margin into arguments[2], as `facecrop --aspect 16:9
// --margin 200 IN -o OUT` does, and prints what it found.
import FaceCrop
import Glibc

let arguments = CommandLine.arguments
do {
    let cropper = FaceCropper(detector: try FaceDetector())
    var options = CropOptions()
    options.aspect = .ratio(width: 16, height: 9)
    options.margin = .pixels(200)
    let report = try cropper.run(arguments[1], output: arguments[2], options: options)
    guard let crop = report.crop, let output = report.output else { fatalError("no crop written") }
    print("version=\(report.version) faces=\(report.faces.count) cut=\(crop.cutFaces.count) crop=\(crop.rect.width)x\(crop.rect.height) output=\(output.width)x\(output.height)")
} catch {
    print("Error: \(error)")
    exit(1)
}

// Compiled, never run: the rest of what a program or server uses stays public (in memory, async, batch, video).
func everyEntryPoint(_ cropper: FaceCropper, _ bytes: [UInt8]) async throws {
    let options = CropOptions()
    let analysis = try cropper.analyze(bytes: bytes, name: "upload.jpg")
    let crop = try cropper.plan(analysis, options: options)
    let encoded = try cropper.encode(analysis, crop: crop.rect, as: .webp, options: options)
    let inMemory = try cropper.run(bytes: bytes, format: .avif, options: options)
    let written = try cropper.write(analysis, crop: crop.rect, to: "out.jpg", options: options)
    let report = try await cropper.runInBackground(bytes: bytes, format: .jpeg, options: options)
    let again = try await cropper.analyzeInBackground("in.jpg")
    let quality = try QualityAnalyzer(landmarks: try LandmarkFitter.loadDefault())
    let finder = BestFrameFinder(cropper: cropper, quality: quality)
    let settings = BatchSettings(outputDirectory: "out", specs: [OutputSpec(aspect: .original, size: .width(800), format: .webp)], crop: options, optionsKey: "")
    let runner = BatchRunner(cropper: cropper, settings: settings)
    let inputs = BatchInputs.collect(["photos"], recursive: true)
    _ = (encoded.bytes, inMemory.report, written.path, report.bytes, again.faces, finder.options, runner.settings, inputs.count)
    _ = (FaceCropError.noFace("x").exitCode, FaceCropper.version, ImageFormat(path: "a.heic"), FaceCropper.outputSize(for: crop.rect, options))
}
SWIFT

start=$(date +%s%N)
if ! (cd "$tmp/consumer" && swift build -q 2>&1 | tee "$tmp/build.log"); then
  echo "check-consumer: the consumer package does not build against facecrop $version" >&2
  exit 1
fi
seconds=$(( ($(date +%s%N) - start + 500000000) / 1000000000 ))
if grep -qiE "warning:|error:" "$tmp/build.log"; then
  echo "check-consumer: the consumer build printed warnings or errors (above)" >&2
  exit 1
fi
echo "check-consumer: consumer package built against facecrop $version (tag of ${head:0:7}) in $seconds s"

line=$("$tmp/consumer/.build/debug/Consumer" Samples/group.jpg "$tmp/library.jpg")
echo "check-consumer: library: $line"
case "$line" in
  "version=$version faces="*" cut=0 "*) ;;
  *) echo "check-consumer: unexpected result from the library (want version $version and no face cut)" >&2; exit 1 ;;
esac
faces=${line#*faces=}; faces=${faces%% *}
[ "$faces" -ge 3 ] || { echo "check-consumer: the library found $faces faces in Samples/group.jpg" >&2; exit 1; }
crop=${line#*crop=}; crop=${crop%% *}
out=${line#*output=}
[ "$crop" = "$out" ] || { echo "check-consumer: output $out is not the crop's size $crop" >&2; exit 1; }
size=$(vipsheader -f width "$tmp/library.jpg")x$(vipsheader -f height "$tmp/library.jpg")
[ "$size" = "$out" ] || { echo "check-consumer: the written file is $size, the report says $out" >&2; exit 1; }

if [ -n "$bin" ]; then
  "$bin" --aspect 16:9 --margin 200 Samples/group.jpg -o "$tmp/command.jpg" >/dev/null
  if ! cmp -s "$tmp/library.jpg" "$tmp/command.jpg"; then
    echo "check-consumer: the library's crop differs from '$bin --aspect 16:9 --margin 200' on Samples/group.jpg" >&2
    exit 1
  fi
  echo "check-consumer: the library's crop is byte for byte the command's"
fi
echo "check-consumer: ok"
