/// One of the five articles the experiments reproduce, cited so that a reader can find it.
///
/// The project refers to each article by a three-digit number (`000` … `004`), the start of the
/// name of the text file it was read from; the texts themselves are not part of the repository.
public struct Article: Sendable, Equatable {
    /// The project's number for it: `000`.
    public var number: String
    /// The title, as the article gives it.
    public var title: String
    /// Who wrote it, and who translated it where it is a translation.
    public var author: String
    /// Where and when it appeared.
    public var publication: String

    /// `article 000`, the short form every format uses beside a quote.
    public var shortName: String { "article \(number)" }

    /// `article 000, “Title” (Author)`: enough to find it; ``publication`` says where.
    public var citation: String { "\(shortName), “\(title)” (\(author))" }

    /// The five articles, by number.
    public static let all: [Article] = [
        Article(
            number: "000", title: "Concurrency in Swift 3 and 4. Operation and OperationQueue",
            author: "BestKora",
            publication:
                "Habr, post 335756, 2017, read in an English translation; its playgrounds are in the author's repository Operation_OperatioQueue"
        ),
        Article(
            number: "001", title: "Concurrency in Swift (Custom Operations Part 4)",
            author: "author not named in the text",
            publication: "a blog post by a senior iOS engineer at HungerStation; the text gives no date"
        ),
        Article(
            number: "002", title: "Pre Modern Concurrency Recap Swift part 2",
            author: "Abdul Ahad", publication: "Medium, 21 December 2024"
        ),
        Article(
            number: "003", title: "[译]Parallel programming with Swift: Operations",
            author: "Jan Olbrich, translated by JACK", publication: "a Chinese translation of article 004"
        ),
        Article(
            number: "004", title: "Parallel programming with Swift: Operations",
            author: "Jan Olbrich", publication: "Medium, 31 January 2018"
        ),
    ]

    /// The article read from `file` (`000_d66eefb2b922d5e0.txt`), by the number its name starts with.
    public static func read(from file: String) -> Article? {
        all.first { file.hasPrefix($0.number + "_") }
    }

    /// `article 000` for an article's file, or the file's name where it is none of the five.
    public static func shortName(ofFile file: String) -> String {
        read(from: file)?.shortName ?? "article \(file)"
    }
}

/// Where in the articles an experiment comes from.
public struct ArticleSource: Sendable, Equatable {
    /// The name of the article's text file, e.g. `000_d66eefb2b922d5e0.txt`: its first three
    /// characters are the project's number for the article (``Article``).
    public var file: String
    /// The section that holds the experiment: the article's heading of it, exactly as the article
    /// writes it (its title, for the text before its first heading), then, after `: `, ` (`,
    /// `; ` or `, `, the project's own words. A heading named there is quoted, “Dependencies”,
    /// and is the heading of the article whose number comes before it (`004 “Dependencies”`),
    /// or of this one when none does.
    public var section: String

    public init(file: String, section: String) {
        self.file = file
        self.section = section
    }

    /// The source of a learner's experiment that names no article: its code is the learner's own.
    public static let yourOwn = ArticleSource(file: "", section: "")

    /// Whether the experiment comes from no article (``yourOwn``).
    public var isYourOwn: Bool { file.isEmpty }
}

extension ArticleSource {
    /// The article this source is in, when it is one of the five.
    public var article: Article? { Article.read(from: file) }

    /// `article 000, “Title” (Author), Section`: where a reader finds the experiment; for a
    /// learner's experiment that names no article, that it is their own.
    public var citation: String {
        isYourOwn
            ? "your own experiment, from none of the articles" : "\(article?.citation ?? "article \(file)"), \(section)"
    }
}
