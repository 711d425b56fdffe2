/** Saves a CSV as a file: a Blob with a byte-order mark, so spreadsheets read it as UTF-8. */
export function downloadCsv(fileName: string, csv: string): void {
  const url = URL.createObjectURL(new Blob(['\uFEFF', csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // Later, not at once: the download reads the Blob after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
