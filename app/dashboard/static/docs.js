// /docs: Swagger UI over the app's own OpenAPI document (served by app/dashboard/assets.py).
// A file of its own, not an inline script, so that the page's CSP can say script-src 'self'.
"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-openapi"),
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    // No call to the public validator: the page works offline and sends the schema nowhere.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
  });
})();
