package dev.ateom.microvm.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Left-aligned columns separated by two spaces, like kubectl's. */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();

    TextTable(String... header) { rows.add(header); }

    TextTable row(Object... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) row[i] = cells[i] == null || "null".equals(String.valueOf(cells[i])) ? "-" : String.valueOf(cells[i]);
        rows.add(row);
        return this;
    }

    void print(PrintStream out) {
        int columns = rows.getFirst().length;
        int[] width = new int[columns];
        for (String[] row : rows) for (int i = 0; i < columns; i++) width[i] = Math.max(width[i], row[i].length());
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(row[i]);
                if (i < columns - 1) line.append(" ".repeat(width[i] - row[i].length() + 2));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
