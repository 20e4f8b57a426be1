#pragma once
// Markdown prose from a model (or pasted by a user) as HTML that is safe to show: GitHub
// Markdown without raw HTML, so a stray "<br>" or "<span style=...>" shows as typed instead
// of hiding the text after it, and without images, which would be fetched from the network
// or read from local files; an image shows as its description and address. A single line
// break stays a line break and tables have a light grid, as in chat apps. TeX math between
// dollars ($x_1 * y_1$ inline, $$...$$ displayed) shows as written, not taken for emphasis or
// escapes: an opening $ is followed by a non-space, a closing one follows a non-space and is
// not followed by a digit (as Pandoc reads it), so "$5 and $10" stays prose.
#include <QString>

QString markdownToSafeHtml(const QString& markdown);
