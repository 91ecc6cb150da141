// SPDX-License-Identifier: MIT
// A sortable table's parts, as the report's sites table (report_tables.js) and the two-run
// page's (diff_table.js) build them: the header row, each header sorting by a click and from
// the keyboard (Tab to it, Enter or Space), the next order when a header is chosen, and the
// rows shown a step at a time behind a "Show N more" button (a table may have 100,000 rows).
/* exported SortableTable */
/* global ReportFormat */
"use strict";

const SortableTable = {
  // The header row of `columns` ([key, label] each), sorted by `sortKey` (descending or not);
  // `isText(key)` for the columns of text (the others are numbers, right-aligned). Choosing
  // a header calls `sortBy(key)`, which draws the table anew in `container`: the focus then
  // goes back to the new header when the keyboard chose it.
  head(columns, sortKey, descending, isText, sortBy, container) {
    const F = ReportFormat;
    const direction = descending ? "descending" : "ascending";
    const head = F.element(
      "tr",
      {},
      ...columns.map(([key, label]) =>
        F.element(
          "th",
          {
            "data-column": key,
            className: (isText(key) ? "" : "num ") + (key === sortKey ? "sorted " + direction : ""),
            // Reached and sorted by keyboard as by the mouse.
            tabIndex: 0,
            scope: "col",
            "aria-sort": key === sortKey ? direction : "none",
          },
          label,
        ),
      ),
    );
    const sort = (event) => {
      if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
      const th = event.target.closest("th");
      if (!th) return;
      event.preventDefault();
      sortBy(th.dataset.column);
      const again = container.querySelector(`th[data-column="${th.dataset.column}"]`);
      if (again && event.type === "keydown") again.focus();
    };
    head.addEventListener("click", sort);
    head.addEventListener("keydown", sort);
    return head;
  },

  // The order after choosing the header `key`, from [sortKey, descending]: the same header
  // turns the order round; another sorts by it, its numbers largest first, its text from A.
  nextOrder(sortKey, descending, key, isText) {
    return sortKey === key ? [key, !descending] : [key, !isText(key)];
  },

  // The button under the table that shows its next rows.
  moreButton(showMore) {
    const more = ReportFormat.element("button", { type: "button", className: "more" });
    more.addEventListener("click", showMore);
    return more;
  },

  // Appends to `body` the rows `shown` to `shown + step` of `count` (`row(k)` makes the k-th),
  // says on `more` how many are left (hidden when none is) and returns how many are shown.
  showMore(body, more, count, shown, step, row) {
    const F = ReportFormat;
    const end = Math.min(count, shown + step);
    const fragment = document.createDocumentFragment();
    for (let k = shown; k < end; k++) fragment.append(row(k));
    body.append(fragment);
    const left = count - end;
    more.hidden = left === 0;
    more.textContent = "Show " + F.integer(Math.min(left, step)) + " more of " + F.integer(left);
    return end;
  },
};
