import Foundation

/// A log-log line chart, drawn as SVG text: one line per contender.
struct SVGChart {
  struct Series {
    let name: String
    let points: [(x: Double, y: Double)]
  }

  let title: String
  let xLabel: String
  let yLabel: String
  let series: [Series]

  private static let colors = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02"]

  func render() -> String {
    let width = 760.0
    let height = 480.0
    let left = 80.0
    let right = 180.0
    let top = 50.0
    let bottom = 60.0
    let all = series.flatMap(\.points).filter { $0.x > 0 && $0.y > 0 }
    guard !all.isEmpty else {
      return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"></svg>\n"
    }
    let minX = floor(log10(all.map(\.x).min()!))
    var maxX = ceil(log10(all.map(\.x).max()!))
    if maxX == minX { maxX += 1 }
    let minY = floor(log10(all.map(\.y).min()!))
    var maxY = ceil(log10(all.map(\.y).max()!))
    if maxY == minY { maxY += 1 }
    func px(_ x: Double) -> Double {
      left + (log10(x) - minX) / (maxX - minX) * (width - left - right)
    }
    func py(_ y: Double) -> Double {
      height - bottom - (log10(y) - minY) / (maxY - minY) * (height - top - bottom)
    }
    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
      viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="white"/>
      <text x="\(width / 2 - right / 2 + left / 2)" y="24" text-anchor="middle" font-size="15">\(escape(title))</text>

      """
    for exponent in Int(minX)...Int(maxX) {
      let x = px(pow(10, Double(exponent)))
      svg +=
        "<line x1=\"\(x)\" y1=\"\(top)\" x2=\"\(x)\" y2=\"\(height - bottom)\" stroke=\"#ddd\"/>\n"
      svg +=
        "<text x=\"\(x)\" y=\"\(height - bottom + 18)\" text-anchor=\"middle\">1e\(exponent)</text>\n"
    }
    for exponent in Int(minY)...Int(maxY) {
      let y = py(pow(10, Double(exponent)))
      svg +=
        "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(width - right)\" y2=\"\(y)\" stroke=\"#ddd\"/>\n"
      svg += "<text x=\"\(left - 8)\" y=\"\(y + 4)\" text-anchor=\"end\">1e\(exponent)</text>\n"
    }
    svg +=
      "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(width - left - right)\" height=\"\(height - top - bottom)\" fill=\"none\" stroke=\"#333\"/>\n"
    svg +=
      "<text x=\"\((left + width - right) / 2)\" y=\"\(height - 16)\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
    svg +=
      "<text transform=\"translate(20 \((top + height - bottom) / 2)) rotate(-90)\" text-anchor=\"middle\">\(escape(yLabel))</text>\n"
    for (index, line) in series.enumerated() {
      let color = Self.colors[index % Self.colors.count]
      let points = line.points.filter { $0.x > 0 && $0.y > 0 }.sorted { $0.x < $1.x }
      let path = points.map { "\(px($0.x)),\(py($0.y))" }.joined(separator: " ")
      svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
      for point in points {
        svg += "<circle cx=\"\(px(point.x))\" cy=\"\(py(point.y))\" r=\"3\" fill=\"\(color)\"/>\n"
      }
      let legendY = top + 10 + Double(index) * 20
      svg +=
        "<line x1=\"\(width - right + 15)\" y1=\"\(legendY)\" x2=\"\(width - right + 35)\" y2=\"\(legendY)\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
      svg += "<text x=\"\(width - right + 40)\" y=\"\(legendY + 4)\">\(escape(line.name))</text>\n"
    }
    return svg + "</svg>\n"
  }

  private func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }
}
