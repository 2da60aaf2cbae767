"""Browser check of the sandbox inbox (GET / on the control port) in Debian's chromium, headless, driven by
selenium with the system's chromedriver (no browser download): with the page open, a Braze image push sent with
`apnsim send` must appear within 2 s as a banner whose image has loaded (naturalWidth > 0). Saves a screenshot.

Usage: inbox_check.py APNSIM CONTROL_URL DEV_PORT MEDIA_URL TOKEN SCREENSHOT
"""
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

apnsim, control, dev_port, media, token, screenshot = sys.argv[1:7]

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(control + "/")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "status").text == "Live")
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.device"))
    print("inbox: page open,", len(driver.find_elements(By.CSS_SELECTOR, "article.device")), "devices shown, status Live")

    payload = ('{"aps":{"alert":{"title":"Inbox","body":"a Braze image"},"mutable-content":1},'
               '"ab":{"att":{"url":"%s/sample.jpg","type":"jpg"}}}' % media)
    sent = subprocess.run([apnsim, "send", "--token", token, "--port", dev_port, "--payload", payload],
                          capture_output=True, text=True, check=True)
    apns_id = next(line.split()[1] for line in sent.stdout.splitlines() if line.startswith("apns-id:"))
    started = time.monotonic()

    def loaded(d):
        return d.execute_script(
            "const b = document.querySelector(`li.banner[data-apns-id='${arguments[0]}'] img`);"
            "return b && b.complete && b.naturalWidth > 0 ? b.naturalWidth : 0;", apns_id)

    width = WebDriverWait(driver, 2, poll_frequency=0.05).until(loaded)
    print(f"inbox: the banner for {apns_id} showed its image ({width} px wide) "
          f"{(time.monotonic() - started) * 1000:.0f} ms after apnsim send returned")
    driver.save_screenshot(screenshot)
    print("inbox: screenshot saved to", screenshot)
finally:
    driver.quit()
