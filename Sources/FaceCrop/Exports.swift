// Library users import FaceCrop and get the pure types (geometry, planning) with it.
@_exported import FaceCropCore
