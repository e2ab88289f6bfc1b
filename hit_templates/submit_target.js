/* Where the form may post. MTurk hands the page its submit host as `turkSubmitTo`; anyone can
   put anything in a URL's query string, so only known submit origins are used (MTurk's two
   externalSubmit hosts, the page's own origin, and origins the server rendered into
   #submit-origins). Anything else leaves the server-rendered action as it is. Pages that are not
   MTurk's (the task server's Prolific and invite pages, #turk-submit false) ignore it: there a
   moved action only loses the submission. */
window.hitflowSubmitTarget = function (form) {
  "use strict";
  var onMTurk = document.getElementById("turk-submit");
  if (onMTurk && JSON.parse(onMTurk.textContent) === false) { return; }
  var known = ["https://www.mturk.com", "https://workersandbox.mturk.com", window.location.origin];
  var listed = document.getElementById("submit-origins");
  if (listed) { known = known.concat(JSON.parse(listed.textContent)); }
  var given = new URLSearchParams(window.location.search).get("turkSubmitTo");
  if (!given) { return; }
  var url = null;
  try { url = new URL(given); } catch (e) { url = null; }
  var plain = url !== null && (url.protocol === "https:" || url.protocol === "http:") && !url.username &&
    !url.password && (url.pathname === "/" || url.pathname === "") && !url.search && !url.hash;
  if (plain && known.indexOf(url.origin) >= 0) {
    form.action = url.origin + "/mturk/externalSubmit";
  } else if (window.console) {
    window.console.warn("turkSubmitTo ignored: not a known submit address");
  }
};
/* The page's MTurk session, shared by the single-form pages: the assignment id (the server's,
   else MTurk's query parameter), the submit target, no submit from the preview, the page clock.
   Returns whether this is the preview. */
window.hitflowOpenPage = function (form) {
  "use strict";
  var params = new URLSearchParams(window.location.search);
  var assignment = document.getElementById("assignmentId");
  // the rendered session first: an imported page's script may have written the field from a URL that lacks it
  var session = assignment.getAttribute("data-session");
  assignment.value = session || assignment.value || params.get("assignmentId") || "ASSIGNMENT_ID_NOT_AVAILABLE";
  var preview = assignment.value === "ASSIGNMENT_ID_NOT_AVAILABLE";
  if (session) {  /* what is posted is the rendered session, whatever a page's later script wrote into the field */
    form.addEventListener("formdata", function (ev) { ev.formData.set("assignmentId", session); });
  }
  window.hitflowSubmitTarget(form);
  document.getElementById("preview-banner").hidden = !preview;
  document.getElementById("submit-btn").disabled = preview;
  document.getElementById("page_start_ms").value = String(Date.now());
  return preview;
};
