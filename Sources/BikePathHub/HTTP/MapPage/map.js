// The hub's map page (docs/hub.md, "Map page"). Plain JavaScript over Leaflet; every
// text from the hub goes into the page as text (textContent or esc()), never as HTML.
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('config').textContent);
  var STATUS = {
    optimal: { colour: '#2a9d3a', label: 'optimal' },
    medium: { colour: '#e0b000', label: 'medium' },
    sufficient: { colour: '#e07000', label: 'sufficient' },
    requiresMaintenance: { colour: '#c0162b', label: 'needs maintenance' },
    unknown: { colour: '#8a8a8a', label: 'unknown' }
  };
  var STATUS_ORDER = ['optimal', 'medium', 'sufficient', 'requiresMaintenance', 'unknown'];
  var ROUTE_BEST = '#1f5fbf', ROUTE_ALT = '#6a4c93';

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  // An element with text children (strings become text nodes) and a class.
  function el(tag, className, children) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    (children || []).forEach(function (c) { e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function km(m) { return (m / 1000).toFixed(m < 10000 ? 2 : 1) + ' km'; }
  function distance(m) { return m < 1000 ? Math.round(m) + ' m' : km(m); }
  function num(x) { return typeof x === 'number' && isFinite(x); }
  function $(id) { return document.getElementById(id); }

  var notice = $('notice');
  var problems = {};
  function say(key, text) {
    if (text) problems[key] = text; else delete problems[key];
    notice.textContent = Object.keys(problems).map(function (k) { return problems[k]; }).join(' ');
  }

  // The map: where the address says (#ZOOM/LAT/LON), else where the hub says, else around
  // the hub's data (its map's tiles and places), else the world.
  var map = L.map('map', { zoomControl: true, worldCopyJump: false });
  var PLACE = /^#(\d{1,2})\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)$/;
  var start = PLACE.exec(location.hash);
  if (start) map.setView([+start[2], +start[3]], Math.min(+start[1], 19));
  else if (config.view) map.setView([config.view.latitude, config.view.longitude], config.view.zoom);
  else { map.setView([30, 0], 2); fitData(); }
  function fitData() {
    fetch('/v1/map/extent', { headers: { Accept: 'application/json' } }).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (body) {
      var b = body && body.bbox;
      if (!Array.isArray(b) || b.length !== 4 || !b.every(num)) return;
      map.fitBounds([[b[1], b[0]], [b[3], b[2]]], { maxZoom: 16 });
    }).catch(function () {});
  }
  if (config.basemap_url) {
    var basemap = L.tileLayer(config.basemap_url, { maxZoom: 19, attribution: esc(config.basemap_attribution || '') }).addTo(map);
    var host = (/^https?:\/\/([^/]+)/.exec(config.basemap_url) || ['', 'its server'])[1];
    // A tile server that is down or unreachable would leave the map white: said, not silent,
    // and the hub's own streets stand in for it until one of its tiles loads. Once tiles came,
    // a failing one leaves a gap, not a white map: said so, and no stand-in starts.
    var standIn = null, tileLoaded = false, gaps = false;
    basemap.on('tileerror', function () {
      if (tileLoaded) {
        gaps = true;
        say('basemap', 'Some basemap tiles failed to load from ' + host + ': the map may have gaps.');
        return;
      }
      say('basemap', 'The basemap failed to load: no tiles came from ' + host + '. The hub\'s streets are drawn in its place.');
      if (!standIn) standIn = streetBase();
    });
    basemap.on('tileload', function () {
      tileLoaded = true;
      if (!gaps) say('basemap');
      if (standIn) { standIn.stop(); standIn = null; }
    });
  }
  L.control.scale({ imperial: false }).addTo(map);
  // A place typed or pasted into the address (the page writes it back as the map moves).
  window.addEventListener('hashchange', function () {
    var m = PLACE.exec(location.hash);
    if (m) map.setView([+m[2], +m[3]], Math.min(+m[1], 19));
  });

  var layers = { network: L.layerGroup(), obstacles: L.layerGroup(), heatmap: L.layerGroup() };
  var drawn = [];  // the routes shown, best first: { layer, best, properties, rank }
  var routesLayer = L.layerGroup().addTo(map), picksLayer = L.layerGroup().addTo(map);
  var toggles = { network: $('show-network'), obstacles: $('show-obstacles'), heatmap: $('show-heatmap') };
  Object.keys(toggles).forEach(function (name) {
    if (toggles[name].checked) layers[name].addTo(map);
    toggles[name].addEventListener('change', function () {
      if (toggles[name].checked) { layers[name].addTo(map); refresh(); } else { map.removeLayer(layers[name]); say(name); }
    });
  });

  // The box in view as the API wants it (W,S,E,N, plain decimals), or null when it covers more than the API answers.
  function box() {
    var b = map.getBounds();
    var w = Math.max(b.getWest(), -180), e = Math.min(b.getEast(), 180), s = Math.max(b.getSouth(), -90), n = Math.min(b.getNorth(), 90);
    var squareKm = (n - s) * 111.32 * (e - w) * 111.32 * Math.cos((s + n) / 2 * Math.PI / 180);
    if (!(w < e && s < n) || squareKm > config.max_square_km * 0.98) return null;
    return [w, s, e, n].map(function (x) { return x.toFixed(5); }).join(',');
  }

  // Heatmap cells of about 24 px at this zoom, as the API allows them (50 m to 5 km).
  function heatCell() {
    var metresPerPixel = 156543.03 * Math.cos(map.getCenter().lat * Math.PI / 180) / Math.pow(2, map.getZoom());
    var sizes = [50, 100, 250, 500, 1000, 2500, 5000], want = metresPerPixel * 24;
    return sizes.reduce(function (best, s) { return Math.abs(s - want) < Math.abs(best - want) ? s : best; });
  }

  var pending = {};
  var overlayName = { network: 'Path status', obstacles: 'Obstacles', heatmap: 'Heatmap' };
  // GET `url` as JSON for one overlay; only its latest answer is drawn.
  function load(name, url, draw) {
    if (pending[name]) pending[name].abort();
    var ctrl = new AbortController();
    pending[name] = ctrl;
    fetch(url, { signal: ctrl.signal, headers: { Accept: 'application/geo+json, application/json' } }).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (body) {
        if (ctrl !== pending[name]) return;
        if (!r.ok || !body) {
          say(name, overlayName[name] + ': not available (' + r.status + (body && body.message ? ', ' + body.message : '') + ').');
          return;
        }
        say(name);
        layers[name].clearLayers();
        draw(body.features || []);
      });
    }).catch(function (err) {
      if (err.name !== 'AbortError') say(name, overlayName[name] + ': the hub did not answer.');
    });
  }

  function line(coords) { return coords.map(function (c) { return [c[1], c[0]]; }); }

  function drawNetwork(features) {
    features.forEach(function (f) {
      if (!f.geometry || f.geometry.type !== 'LineString') return;
      var p = f.properties || {}, s = STATUS[p.status] || STATUS.unknown;
      L.polyline(line(f.geometry.coordinates), {
        color: s.colour, weight: 5, opacity: drawn.length ? 0.35 : 0.9, interactive: false,
        dashArray: STATUS[p.status] && p.status !== 'unknown' ? null : '6 6', className: 'net-line'
      }).addTo(layers.network);
    });
  }

  function obstaclePopup(p) {
    var rows = [['Kind', p.kind], ['Riders', p.riders], ['Confidence', num(p.confidence) ? Math.round(p.confidence * 100) + ' %' : '—'],
                ['First seen', p.first_seen || '—'], ['Last seen', p.last_seen || '—']];
    var div = el('div', 'popup');
    rows.forEach(function (r) { div.appendChild(el('div', null, [el('b', null, [r[0] + ': ']), String(r[1] === undefined ? '—' : r[1])])); });
    return div;
  }

  function drawObstacles(features) {
    features.forEach(function (f) {
      if (!f.geometry || f.geometry.type !== 'Point') return;
      var c = f.geometry.coordinates;
      L.circleMarker([c[1], c[0]], { radius: 8, color: '#fff', weight: 2, fillColor: '#7a1fa2', fillOpacity: 0.95,
                                     className: 'obstacle', bubblingMouseEvents: false })
        .bindPopup(obstaclePopup(f.properties || {})).addTo(layers.obstacles);
    });
  }

  function drawHeatmap(features) {
    var most = features.reduce(function (m, f) { return Math.max(m, (f.properties || {}).reports || 0); }, 1);
    features.forEach(function (f) {
      if (!f.geometry || f.geometry.type !== 'Polygon') return;
      var part = ((f.properties || {}).reports || 0) / most;
      L.polygon(line(f.geometry.coordinates[0]), { stroke: false, fillColor: part > 0.66 ? '#b10026' : part > 0.33 ? '#fc4e2a' : '#feb24c',
                                                   fillOpacity: 0.25 + 0.45 * part, interactive: false, className: 'heat-cell' })
        .addTo(layers.heatmap);
    });
  }

  // The overlays for the box in view, a moment after the map stops moving.
  function refresh() {
    var b = box();
    if (!b) {
      say('zoom', 'Zoomed out too far: the hub answers for at most ' + config.max_square_km.toLocaleString('en') + ' km² at once. Zoom in to see the paths.');
      return;
    }
    say('zoom');
    if (toggles.network.checked) load('network', '/v1/map/network?bbox=' + b, drawNetwork);
    if (toggles.obstacles.checked) load('obstacles', '/v1/map/obstacles?bbox=' + b, drawObstacles);
    if (toggles.heatmap.checked) load('heatmap', '/v1/map/heatmap?bbox=' + b + '&cell=' + heatCell(), drawHeatmap);
  }
  var timer = null;
  map.on('moveend', function () {
    var c = map.getCenter();
    history.replaceState(null, '', '#' + map.getZoom() + '/' + c.lat.toFixed(5) + '/' + c.lng.toFixed(5));
    clearTimeout(timer);
    timer = setTimeout(refresh, 300);
  });
  refresh();

  // The streets of the hub's OpenStreetMap import as a light grey base under the overlays,
  // with their names, on a page without a basemap or while its tiles fail (docs/hub.md, "Map
  // page"): fetched for the box in view once it covers at most config.streets_max_square_km,
  // never the whole city. Answers { stop } to take them away again.
  if (!config.basemap_url) streetBase();
  function streetBase() {
    if (!map.getPane('streets')) map.createPane('streets').style.zIndex = 350;  // under the overlay pane (400)
    var lines = L.layerGroup().addTo(map), ctrl = null, wait = null, credited = null;
    // Wider for the bigger roads, as on a printed street map; paths and tracks thinnest.
    var WIDTH = { primary: 6, primary_link: 4, secondary: 5, secondary_link: 4, tertiary: 4, unclassified: 3, residential: 3,
                  living_street: 3 };
    function streetBox() {
      var b = map.getBounds(), s = b.getSouth(), n = b.getNorth(), w = b.getWest(), e = b.getEast();
      var squareKm = (n - s) * 111.32 * (e - w) * 111.32 * Math.cos((s + n) / 2 * Math.PI / 180);
      if (!(w >= -180 && e <= 180 && s >= -90 && n <= 90 && w < e && s < n) || squareKm > config.streets_max_square_km * 0.98) return null;
      return [w, s, e, n].map(function (x) { return x.toFixed(5); }).join(',');
    }
    function draw(body) {
      var features = (body.features || []).filter(function (f) { return f.geometry && f.geometry.type === 'LineString'; });
      if (features.length && !credited && typeof body.attribution === 'string') {
        credited = esc(body.attribution);
        map.attributionControl.addAttribution(credited);
      }
      var longest = {};  // name → its longest edge in view, where the name is written
      features.forEach(function (f) {
        var p = f.properties || {}, length = num(p.length_m) ? p.length_m : 0;
        var layer = L.polyline(line(f.geometry.coordinates), {
          pane: 'streets', color: '#cfcfcf', weight: WIDTH[p.highway] || 2, opacity: 1, interactive: false, className: 'street-line'
        }).addTo(lines);
        if (typeof p.name === 'string' && (!longest[p.name] || length > longest[p.name].length)) {
          longest[p.name] = { layer: layer, length: length };
        }
      });
      // Names from zoom 16, each once: at 15 they would cover the streets they name.
      if (map.getZoom() < 16) return;
      Object.keys(longest).forEach(function (name) {
        longest[name].layer.bindTooltip(el('span', null, [name]), { permanent: true, direction: 'center', className: 'street-name' });
      });
    }
    function refreshStreets() {
      if (ctrl) ctrl.abort();
      ctrl = null;
      var b = streetBox();
      if (!b) { lines.clearLayers(); say('streets'); return; }
      var mine = new AbortController();
      ctrl = mine;
      fetch('/v1/streets?bbox=' + b, { signal: mine.signal, headers: { Accept: 'application/geo+json, application/json' } }).then(function (r) {
        return r.json().catch(function () { return null; }).then(function (body) {
          if (mine !== ctrl) return;
          lines.clearLayers();
          if (!r.ok || !body) {
            say('streets', 'Streets: not available (' + r.status + (body && body.message ? ', ' + body.message : '') + ').');
            return;
          }
          say('streets');
          draw(body);
        });
      }).catch(function (err) {
        if (err.name !== 'AbortError') say('streets', 'Streets: the hub did not answer.');
      });
    }
    function moved() { clearTimeout(wait); wait = setTimeout(refreshStreets, 300); }
    map.on('moveend', moved);
    refreshStreets();
    return {
      stop: function () {
        map.off('moveend', moved);
        clearTimeout(wait);
        if (ctrl) ctrl.abort();
        ctrl = null;
        map.removeLayer(lines);
        if (credited) map.attributionControl.removeAttribution(credited);
        say('streets');
      }
    };
  }

  // Route search: the start and destination tapped on the map or typed as LAT,LON.
  var from = $('from'), to = $('to'), list = $('routes'), routeError = $('route-error'), hint = $('hint');
  var picks = { from: null, to: null }, next = 'from';

  function parsePoint(text) {
    var m = /^\s*(-?\d+(?:\.\d+)?)\s*[,;\s]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
    if (!m) return null;
    var lat = +m[1], lon = +m[2];
    return Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? L.latLng(lat, lon) : null;
  }
  function pointText(p) { return p.lat.toFixed(5) + ',' + p.lng.toFixed(5); }

  function showPick(which, p) {
    if (picks[which]) picksLayer.removeLayer(picks[which]);
    picks[which] = null;
    if (!p) return;
    picks[which] = L.circleMarker(p, { radius: 9, color: '#000', weight: 3, fillColor: which === 'from' ? '#fff' : '#000', fillOpacity: 1,
                                       interactive: false, className: 'pick pick-' + which })
      .bindTooltip(which === 'from' ? 'Start' : 'Destination', { permanent: true, direction: 'top', offset: [0, -8] }).addTo(picksLayer);
  }

  function showError(text) {
    routeError.textContent = text;
    routeError.hidden = !text;
  }

  map.on('click', function (e) {
    if (next === 'from') {
      from.value = pointText(e.latlng); showPick('from', e.latlng);
      to.value = ''; showPick('to', null); clearRoutes();
      next = 'to'; hint.textContent = 'Now tap the destination.';
    } else {
      to.value = pointText(e.latlng); showPick('to', e.latlng);
      next = 'from'; hint.textContent = 'Tap the map again to choose a new start.';
      search();
    }
  });
  [['from', from], ['to', to]].forEach(function (pair) {
    pair[1].addEventListener('change', function () { showPick(pair[0], pointOf(pair[0], pair[1])); });
    suggest(pair[0], pair[1], $(pair[0] + '-suggestions'));
  });

  // Names: as one is typed, places from /v1/places (nearest the map's centre first among
  // equal matches) listed under the field; choosing one sets the point.
  var chosen = { from: null, to: null };  // { name, at }
  function pointOf(which, input) {
    var p = parsePoint(input.value), c = chosen[which];
    return p || (c && c.name === input.value.trim() ? c.at : null);
  }
  function suggest(which, input, shown) {
    var ctrl = null, wait = null;
    function close() { shown.textContent = ''; shown.hidden = true; }
    input.addEventListener('input', function () {
      clearTimeout(wait);
      if (ctrl) ctrl.abort();
      var text = input.value.trim();
      if (text.length < 3 || text.length > 100 || parsePoint(text)) { close(); return; }
      wait = setTimeout(function () {
        ctrl = new AbortController();
        var mine = ctrl, c = map.getCenter();
        var url = '/v1/places?q=' + encodeURIComponent(text) + '&near=' + c.lat.toFixed(5) + ',' + c.lng.toFixed(5) + '&limit=6';
        fetch(url, { signal: mine.signal, headers: { Accept: 'application/geo+json, application/json' } }).then(function (r) {
          return r.ok ? r.json() : null;
        }).then(function (body) {
          if (mine !== ctrl) return;
          close();
          ((body && body.features) || []).forEach(function (f) {
            if (!f.geometry || f.geometry.type !== 'Point') return;
            var p = f.properties || {}, at = L.latLng(f.geometry.coordinates[1], f.geometry.coordinates[0]);
            var what = String(p.kind || 'place') + (num(p.distance_m) ? ' · ' + distance(p.distance_m) : '');
            var button = el('button', 'suggestion', [String(p.name), el('span', 'detail', [what])]);
            button.type = 'button';
            button.addEventListener('click', function () {
              input.value = String(p.name);
              chosen[which] = { name: input.value, at: at };
              close();
              showPick(which, at);
            });
            shown.appendChild(el('li', null, [button]));
          });
          shown.hidden = !shown.firstChild;
        }).catch(function () {});
      }, 250);
    });
  }

  function clearRoutes() {
    routesLayer.clearLayers();
    list.textContent = '';
    drawn = [];
    showError('');
    fadeNetwork();
  }

  // The network steps back while routes are shown, so that they stand out.
  function fadeNetwork() {
    layers.network.eachLayer(function (l) { l.setStyle({ opacity: drawn.length ? 0.35 : 0.9 }); });
  }

  $('clear').addEventListener('click', function () {
    clearRoutes(); from.value = ''; to.value = ''; showPick('from', null); showPick('to', null);
    chosen.from = chosen.to = null;
    next = 'from'; hint.textContent = 'Tap the map for the start, then for the destination, or type a place\'s name or LAT,LON.';
  });

  $('route-form').addEventListener('submit', function (e) { e.preventDefault(); search(); });

  var searching = null;
  function search() {
    var a = pointOf('from', from), b = pointOf('to', to);
    clearRoutes();
    if (!a || !b) {
      showError((!a ? 'From' : 'To') + ': choose a place from the names suggested, write it as LAT,LON in degrees, e.g. 52.51,13.32, or tap it on the map.');
      return;
    }
    showPick('from', a); showPick('to', b);
    if (searching) searching.abort();
    var ctrl = new AbortController();
    searching = ctrl;
    $('find').disabled = true;
    list.setAttribute('aria-busy', 'true');
    var url = '/v1/routes?from=' + encodeURIComponent(pointText(a)) + '&to=' + encodeURIComponent(pointText(b)) + '&k=3';
    fetch(url, { signal: ctrl.signal, headers: { Accept: 'application/geo+json, application/json' } }).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (body) {
        if (ctrl !== searching) return;
        if (!r.ok) showError(routeProblem(r.status, body));
        else drawRoutes((body && body.features) || []);
      });
    }).catch(function (err) {
      if (err.name !== 'AbortError' && ctrl === searching) showError('The hub did not answer the route search; try again.');
    }).then(function () {
      if (ctrl === searching) { $('find').disabled = false; list.removeAttribute('aria-busy'); }
    });
  }

  // An error answer ({"error": code, "message": text, ...}) as a sentence for people.
  function routeProblem(status, body) {
    if (!body || typeof body.error !== 'string') {
      return status === 404 ? 'This hub does not search routes (404).' : 'The route search failed (' + status + ').';
    }
    var text = typeof body.message === 'string' ? body.message : body.error;
    if (!/[.!?]$/.test(text)) text += '.';
    if (body.error === 'no-path-near' && num(body.nearest_m) && !/nearest/i.test(text)) {
      text += ' The nearest path or street is ' + distance(body.nearest_m) + ' away.';
    }
    if (body.error === 'no-route') text += ' Try places on connected paths.';
    return text;
  }

  function share(statusM, total) {
    var bar = el('span', 'bar'), parts = [];
    STATUS_ORDER.forEach(function (s) {
      var m = statusM && num(statusM[s]) ? statusM[s] : 0;
      if (m <= 0 || total <= 0) return;
      var seg = el('span', 's-' + s);
      seg.style.width = (100 * m / total) + '%';
      bar.appendChild(seg);
      parts.push(STATUS[s].label + ' ' + Math.round(100 * m / total) + ' %');
    });
    return { bar: bar, text: parts.join(' · ') };
  }

  // The route street by street: "community path 420 m, optimal, 3 riders", OSM's streets
  // as "Goswell Road 420 m, optimal, 3 riders" where two or more riders rated them and as
  // "Goswell Road 420 m, unrated" where not, the access legs at either end as
  // "straight to the path 6 m" (nobody rode them; the hub lists none under 5 m).
  function legList(legs) {
    return el('ol', 'legs', (Array.isArray(legs) ? legs : []).filter(function (g) { return num(g.length_m); }).map(function (g) {
      if (g.kind === 'access') return el('li', 'leg access', ['straight to the path ' + distance(g.length_m)]);
      var street = g.kind === 'street', name = g.name || (street ? 'unnamed street' : 'community path');
      if (street && !STATUS[g.status]) return el('li', 'leg street', [name + ' ' + distance(g.length_m) + ', unrated']);
      var s = STATUS[g.status] || STATUS.unknown, riders = num(g.riders) ? g.riders : 0;
      return el('li', street ? 'leg street' : 'leg', [name + ' ' + distance(g.length_m) + ', ' + s.label + ', ' +
                              riders + (riders === 1 ? ' rider' : ' riders')]);
    }));
  }

  function drawRoutes(features) {
    features = features.filter(function (f) { return f.geometry && f.geometry.type === 'LineString'; });
    if (!features.length) { showError('No route found.'); return; }
    var bounds = L.latLngBounds([]);
    // The alternatives first, the best on top of them.
    features.slice().reverse().forEach(function (f, i) {
      var p = f.properties || {}, best = p.best === true, rank = num(p.rank) ? p.rank : features.length - i;
      var layer = L.polyline(line(f.geometry.coordinates), {
        color: best ? ROUTE_BEST : ROUTE_ALT, weight: best ? 9 : 5, opacity: best ? 0.95 : 0.8, dashArray: best ? null : '10 7',
        className: 'route-line' + (best ? ' route-best' : ''), bubblingMouseEvents: false
      }).addTo(routesLayer);
      layer.bindTooltip(best ? 'best' : 'route ' + rank, { sticky: true });
      bounds.extend(layer.getBounds());
      (p.obstacles || []).forEach(function (o) {
        if (!Array.isArray(o.coordinates)) return;
        L.circleMarker([o.coordinates[1], o.coordinates[0]], { radius: 6, color: '#000', weight: 2, fillColor: '#ffd400', fillOpacity: 1,
                                                              className: 'route-obstacle', bubblingMouseEvents: false })
          .bindPopup(obstaclePopup(o)).addTo(routesLayer);
      });
      drawn.unshift({ layer: layer, best: best, properties: p, rank: rank });
    });
    drawn.forEach(function (d, i) {
      var p = d.properties, length = num(p.length_m) ? p.length_m : 0, s = share(p.status_m, length);
      var count = Array.isArray(p.obstacles) ? p.obstacles.length : 0;
      var head = el('span', null, [el('span', d.best ? 'badge' : 'alt', [d.best ? 'best' : 'route ' + d.rank]),
                                   ' ' + km(length) + ' · score ' + (num(p.score) ? p.score.toFixed(2) : '—')]);
      var button = el('button', 'route' + (d.best ? ' best' : ''), [head, s.bar, el('span', 'detail', [s.text || 'no status known']),
                                                                     el('span', 'detail', [count === 0 ? 'no obstacles' : count === 1 ? '1 obstacle' : count + ' obstacles'])]);
      button.type = 'button';
      button.id = 'route-' + (i + 1);
      button.setAttribute('aria-pressed', 'false');
      button.addEventListener('click', function () { highlight(i); });
      d.layer.on('click', function () { highlight(i); });
      list.appendChild(el('li', null, [button, legList(p.legs)]));
    });
    fadeNetwork();
    if (bounds.isValid()) map.fitBounds(bounds, { padding: [24, 24] });
  }

  // One route stands out on the map and in the list; the others fade.
  function highlight(index) {
    drawn.forEach(function (d, i) {
      var on = i === index;
      d.layer.setStyle({ opacity: on ? 1 : 0.35, weight: on ? 10 : d.best ? 7 : 4 });
      if (on) d.layer.bringToFront();
      $('route-' + (i + 1)).setAttribute('aria-pressed', on ? 'true' : 'false');
    });
  }

  // A search in the address (/map?from=LAT,LON&to=LAT,LON#ZOOM/LAT/LON): a route to
  // share or bookmark, searched as the page opens.
  var asked = new URLSearchParams(location.search);
  if (parsePoint(asked.get('from') || '') && parsePoint(asked.get('to') || '')) {
    from.value = asked.get('from');
    to.value = asked.get('to');
    showPick('from', parsePoint(from.value));
    showPick('to', parsePoint(to.value));
    search();
  }

  window.bikepathMap = { map: map, layers: layers, routes: function () { return drawn; } };
})();
