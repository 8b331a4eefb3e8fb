// The dashboard's charts, interactive: each figure's Vega-Lite spec (a JSON data block beside
// its server-drawn SVG) drawn by vega-embed with tooltips, hover and, on time series, pan and
// zoom (drag, wheel; double-click resets). The SVG stays as the picture without JavaScript and
// whenever drawing fails. Served by the app (app/dashboard/assets.py) with vega, vega-lite,
// vega-embed and vega-interpreter; expressions run in the interpreter, so the page's CSP needs
// no 'unsafe-eval'.
"use strict";
(function () {
  var options = {
    renderer: "svg",
    actions: false, // the page links the SVG, CSV and JSON itself; no editor on another site
    ast: true,
    expr: vega.expressionInterpreter,
    tooltip: { theme: "light" },
    logLevel: vega.Error, // warnings (an empty layer's extent) are no news to a reader
  };
  document.querySelectorAll("figure.chart").forEach(function (figure) {
    var data = figure.querySelector("script.spec");
    if (!data) {
      return;
    }
    var target = document.createElement("div");
    target.className = "interactive";
    figure.insertBefore(target, data);
    vegaEmbed(target, JSON.parse(data.textContent), options)
      .then(function () {
        figure.setAttribute("data-interactive", "true");
      })
      .catch(function (error) {
        target.remove();
        figure.setAttribute("data-interactive", "failed");
        console.warn("chart " + figure.getAttribute("data-chart") + " stays a picture:", error);
      });
  });
})();
