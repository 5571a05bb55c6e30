// Output formats come from one table (ImageFormat.pathExtensions): parsing, the usual extension and the lists
// messages and help texts are made of.
import FaceCrop
import Testing

struct ImageFormatTests {
    @Test(arguments: [
        // (extension, format)
        ("jpg", ImageFormat?.some(.jpeg)), ("jpeg", .jpeg), ("JPG", .jpeg), ("png", .png), ("webp", .webp), ("tif", .tiff), ("TIFF", .tiff),
        ("heic", .heif), ("heif", .heif), ("avif", .avif),
        ("gif", nil), ("", nil), ("jpg ", nil), (".jpg", nil), ("jp", nil),
    ])
    func formatsFromExtensions(_ ext: String, _ format: ImageFormat?) {
        #expect(ImageFormat(pathExtension: ext) == format)
    }

    @Test(arguments: [
        // (path, format)
        ("out/a.b.png", ImageFormat?.some(.png)), ("a.JPEG", .jpeg), (".jpg", .jpeg), ("x", nil), ("dir.jpg/x", nil), ("a.", nil), ("", nil),
    ])
    func formatsFromPaths(_ path: String, _ format: ImageFormat?) {
        #expect(ImageFormat(path: path) == format)
    }

    @Test func everyFormatIsNamedByItsUsualExtension() {
        for format in ImageFormat.allCases {
            #expect(format.fileExtension == format.pathExtensions[0])
            #expect(format.pathExtensions.allSatisfy { ImageFormat(pathExtension: $0) == format })
        }
        #expect(ImageFormat.choices() == "jpg, png, webp, tif, heic or avif")
        #expect(ImageFormat.choices(dotted: true) == ".jpg, .png, .webp, .tif, .heic or .avif")
        #expect(ImageFormat.dottedList == ".jpg .png .webp .tif .heic .avif")
    }
}
