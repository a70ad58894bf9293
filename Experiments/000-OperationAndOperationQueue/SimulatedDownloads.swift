/// The simulated downloads' latencies, in article seconds.
///
/// The article downloaded real pictures and reports only the result: about 10 s for all four,
/// Venice "loaded and filtered much longer than the rest", and a cancel at 6 s leaving images
/// 1, 3 and 4. These latencies are chosen so that shape follows: Venice takes 10 s, the others
/// arrive well before 6 s, and no arrival falls near the cancel (the nearest, arctic-12 at
/// 5 s, is a whole second away).
enum SimulatedDownloads {
    static let latencies: [String: Double] = [
        "Eiffel Tower": 2.5,
        "Venice": 10,
        "screenshot": 2,
        "arctic-12": 5,
        // The table-view app's other pictures.
        "Scottish castle": 2,
        "Arctic-02": 1.5,
        "Arctic-16": 1,
        "Arctic-15": 2.5,
    ]

    /// Why the latencies are what they are, as the settings line says it.
    static let why = "the article states none; these give its 10 s in all and its images 1, 3 and 4 by 6 s"

    /// The four providers of the article, in its order.
    static let providerImages = ["Eiffel Tower", "Venice", "screenshot", "arctic-12"]

    static func latency(_ name: String) -> Double {
        latencies[name] ?? 1
    }
}
