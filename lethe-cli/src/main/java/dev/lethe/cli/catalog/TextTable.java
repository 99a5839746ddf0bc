package dev.lethe.cli.catalog;

import java.io.PrintWriter;
import java.util.List;

/** Prints rows as left-aligned columns two spaces apart, the first row being the header; no trailing blanks. */
final class TextTable {
  private TextTable() {}

  /**
   * @param rows header first; every row has the header's number of cells, none null
   */
  static void print(PrintWriter out, List<String[]> rows) {
    int[] widths = new int[rows.get(0).length];
    for (String[] r : rows) {
      // the last column is never padded, so a long last cell does not widen the others
      for (int i = 0; i < r.length - 1; i++) {
        widths[i] = Math.max(widths[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(i == r.length - 1 ? r[i] : String.format("%-" + widths[i] + "s  ", r[i]));
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }
}
